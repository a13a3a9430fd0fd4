/**
 * Contract of the inline `!flag` feature as seen by filters. The host parses flag
 * blocks, persists `!+flag` state per chat, and hands every hook an ActiveFlags.
 */

export type FlagValue = string | number | boolean;

/** Declaration of one flag: built-ins come from src/domain/flags, filters may register their own. */
export interface FlagSpec {
  /** The key as typed after `!`, lower case: `recent`, `keep_tag`, `nocost`. */
  key: string;
  /** How the value is validated; `boolean` flags accept no value, or true/false/1/0/yes/no/on/off. */
  kind: 'boolean' | 'integer' | 'number' | 'string';
  description: string;
  /** Example shown in the README / `!flags` output, e.g. `!recent=6`. */
  example?: string;
  /** Inclusive bounds for integer/number kinds. */
  min?: number;
  max?: number;
  /**
   * `turn`: applies to the request (or the chat with `+`).
   * `message`: attaches to the message that carries it (pin, tag) and is remembered by message id.
   */
  scope?: 'turn' | 'message';
}

/** Per-message state attached by message-scoped flags, keyed by stable message id. */
export interface MessageMarks {
  pinned?: boolean;
  tags?: string[];
  /** Values of message-scoped flags registered by filters (not pin/tag), by key. */
  flags?: Record<string, FlagValue>;
}

/** Flags in force for one request, handed to every hook as `flags`. */
export interface ActiveFlags {
  /** Stable key of the chat (metadata.chat_id, chat_id, or derived from user + first message). */
  readonly chatKey: string;
  /** Persistent (`!+key`) merged with this turn's temporary flags; temporary wins. */
  readonly effective: Readonly<Record<string, FlagValue>>;
  readonly persistent: Readonly<Record<string, FlagValue>>;
  readonly temporary: Readonly<Record<string, FlagValue>>;
  /** Marks (pins, tags) by stable message id, across the whole chat. */
  readonly marks: Readonly<Record<string, MessageMarks>>;
  /** Human-readable notices for rejected flag values (`!recent=abc`). */
  readonly notices: readonly string[];
  /** Where the persistent state came from this request. */
  readonly source: 'store' | 'replay' | 'none';
  /** Per-user default flags (user valves) in force under the chat's persistent flags; absent when none. */
  readonly defaults?: Readonly<Record<string, FlagValue>>;
  /** True when `key` is in `effective` with a value other than `false` (`!nosum=false` switches nosum off). */
  has(key: string): boolean;
  /** The effective value of `key` (may be `false`). */
  get(key: string): FlagValue | undefined;
}
