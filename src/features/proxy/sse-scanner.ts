import type { WireObject } from '../../runtime/pipes/completion-chunks.js';
import { finishReasonOf } from '../../runtime/pipes/pipe-events.js';

/** The whole events found in one network piece of an upstream SSE stream. */
export interface ScannedPiece {
  /** The bytes of the whole events, up to (not including) `[DONE]` or a stopping error event. */
  bytes: Uint8Array | string;
  /** Each JSON `data` object, in order (non-JSON data is skipped). */
  events: WireObject[];
  /** An event carried a `finish_reason`. */
  finished: boolean;
  /** `data: [DONE]` was reached (nothing after it is returned). */
  done: boolean;
  /** A provider error event (`{error}` and no choices) was reached: it is not in `bytes`. */
  error?: WireObject;
}

const isRecord = (value: unknown): value is WireObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const NEWLINE = 10;
const RETURN = 13;

/**
 * The end of the last blank line (`\n\n` or `\n\r\n`) in `piece`, or 0 when there is none;
 * `before1` and `before2` are the last and second last bytes that came before it (-1: none), so a
 * blank line split between two pieces is found too. Only `piece` is read.
 */
function lastBoundary(piece: Uint8Array, before1: number, before2: number): number {
  for (let index = piece.length - 1; index >= 0; index -= 1) {
    if (piece[index] !== NEWLINE) continue;
    const previous = index >= 1 ? piece[index - 1] : before1;
    if (previous === NEWLINE) return index + 1;
    const second = index >= 2 ? piece[index - 2] : index === 1 ? before1 : before2;
    if (previous === RETURN && second === NEWLINE) return index + 1;
  }
  return 0;
}

/**
 * Splits an upstream's SSE byte stream into whole events, piece by piece, without copying what it
 * forwards: a piece's whole events are returned as the same bytes (a partial event at its end
 * waits for the next piece). Each `data` field is parsed once (multi-line data joined with `\n`,
 * as the SSE spec says); comments (`: OPENROUTER PROCESSING`), `event:` and `id:` lines pass
 * through in the bytes.
 */
export class SseScanner {
  /** The pieces of a partial event, kept as they came and joined once its end arrives. */
  private pending: Uint8Array[] = [];
  private readonly decoder = new TextDecoder();

  /** Scan one network piece: only the piece (and the last two bytes before it) is searched for an event's end. */
  push(piece: Uint8Array): ScannedPiece {
    const end = lastBoundary(piece, this.lastByte(1), this.lastByte(2));
    if (end === 0) {
      if (piece.length) this.pending.push(piece);
      return this.scan(piece.subarray(0, 0));
    }
    const head = piece.subarray(0, end);
    const bytes = this.pending.length ? concat([...this.pending, head]) : end === piece.length ? piece : head;
    this.pending = end < piece.length ? [piece.subarray(end)] : [];
    return this.scan(bytes);
  }

  /** What is left when the stream ends: a last event without its blank line. */
  end(): ScannedPiece {
    const rest = this.pending;
    this.pending = [];
    if (!rest.length) return { bytes: '', events: [], finished: false, done: false };
    return this.scan(concat([...rest, new TextEncoder().encode('\n\n')]));
  }

  /** The `n`th byte from the end of what is pending (1: the last), or -1. */
  private lastByte(n: number): number {
    for (let index = this.pending.length - 1; index >= 0; index -= 1) {
      const chunk = this.pending[index]!;
      if (n <= chunk.length) return chunk[chunk.length - n]!;
      n -= chunk.length;
    }
    return -1;
  }

  private scan(bytes: Uint8Array): ScannedPiece {
    const result: ScannedPiece = { bytes, events: [], finished: false, done: false };
    if (!bytes.length) return result;
    const text = this.decoder.decode(bytes);
    let data: string[] = [];
    let eventStart = 0;
    let start = 0;
    while (start < text.length) {
      let newline = text.indexOf('\n', start);
      if (newline === -1) newline = text.length;
      const lineEnd = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      if (lineEnd === start) {
        if (data.length) {
          const payload = data.length === 1 ? data[0]! : data.join('\n');
          data = [];
          if (payload === '[DONE]') return this.cut(result, text, eventStart, { done: true });
          const json = parse(payload);
          if (json) {
            if (isRecord(json.error) && !(Array.isArray(json.choices) && json.choices.length))
              return this.cut(result, text, eventStart, { error: json.error });
            result.events.push(json);
            if (!result.finished && finishReasonOf(json) !== undefined) result.finished = true;
          }
        }
        eventStart = newline + 1;
      } else if (text.startsWith('data:', start)) {
        data.push(text.slice(start + (text.charCodeAt(start + 5) === 32 ? 6 : 5), lineEnd));
      }
      start = newline + 1;
    }
    return result;
  }

  /** Stop at the event starting at `eventStart`: only what came before it is forwarded. */
  private cut(result: ScannedPiece, text: string, eventStart: number, stop: Partial<ScannedPiece>): ScannedPiece {
    this.pending = [];
    return { ...result, ...stop, bytes: text.slice(0, eventStart) };
  }
}

function parse(payload: string): WireObject | undefined {
  try {
    const value: unknown = JSON.parse(payload);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The pieces joined in one new array. */
function concat(pieces: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const piece of pieces) length += piece.length;
  const joined = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    joined.set(piece, at);
    at += piece.length;
  }
  return joined;
}
