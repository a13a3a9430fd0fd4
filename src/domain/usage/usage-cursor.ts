import { ValidationError } from '../../core/errors/index.js';

/** A position in the ledger's (time, seq) order. */
export interface Cursor {
  time: number;
  seq: number;
}

/** Parse a `before` cursor of an earlier page (`<time>.<seq>`); ValidationError when malformed. */
export function parseCursor(text: string): Cursor {
  const match = /^(-?\d{1,16})\.(\d{1,16})$/.exec(text);
  if (!match)
    throw new ValidationError(`Invalid usage query: before: not a cursor from an earlier page: ${text}`, [
      { path: 'before', message: 'not a cursor from an earlier page' },
    ]);
  return { time: Number(match[1]), seq: Number(match[2]) };
}
