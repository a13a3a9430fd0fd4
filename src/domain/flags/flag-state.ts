import type { FlagValue, MessageMarks } from './types.js';

/** The newest flagged turn, so later filters of Open WebUI's chain (which get stripped messages) see its flags. */
export interface TurnRecord {
  /** Stable id of the user message that carried the block. */
  id: string;
  /** Its applied key (id + block digest). */
  key: string;
  temporary: Record<string, FlagValue>;
  notices: string[];
}

/** The JSON document stored per chat key in the host's flags namespace. */
export interface FlagStateDoc {
  v: 1;
  /** `!+key[=value]` flags of the chat. */
  persistent: Record<string, FlagValue>;
  /** Keys switched off with `!-key`: they also hide the user's default for that key. */
  cleared: string[];
  /** Pins, tags and registered message-scoped flags, by stable message id. */
  marks: Record<string, MessageMarks>;
  /**
   * `<message id>#<block digest>` of every block already applied (each exactly once: a regenerate
   * or a resend never re-applies an older block).
   */
  applied: string[];
  /** The newest flagged turn (see currentTurn). */
  turn?: TurnRecord;
  /** Epoch ms of the last write (the TTL is refreshed when it gets old). */
  updatedAt: number;
}

/** A fresh, empty state. */
export function emptyFlagState(): FlagStateDoc {
  return { v: 1, persistent: {}, cleared: [], marks: {}, applied: [], updatedAt: 0 };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === 'object' && !Array.isArray(value);
const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

function isTurnRecord(value: unknown): value is TurnRecord {
  return (
    isRecord(value) &&
    typeof value.id === 'string' &&
    typeof value.key === 'string' &&
    isRecord(value.temporary) &&
    isStringArray(value.notices)
  );
}

/** True when a stored value has the shape of a FlagStateDoc (anything else is treated as absent). */
export function isFlagStateDoc(value: unknown): value is FlagStateDoc {
  return (
    isRecord(value) &&
    value.v === 1 &&
    isRecord(value.persistent) &&
    isStringArray(value.cleared) &&
    isRecord(value.marks) &&
    isStringArray(value.applied) &&
    typeof value.updatedAt === 'number' &&
    (value.turn === undefined || isTurnRecord(value.turn))
  );
}

/** A deep copy, so folding blocks never changes a document that came from the store. */
export function cloneFlagState(doc: FlagStateDoc): FlagStateDoc {
  return structuredClone(doc);
}
