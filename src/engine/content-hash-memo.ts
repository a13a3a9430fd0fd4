/** Shallow identity of a message: the fields its id is derived from, compared by `===`. */
interface MemoEntry {
  role: unknown;
  name: unknown;
  content: unknown;
  toolCallId: unknown;
  hash: string;
}

/** Loose view of the fields a content hash reads. */
interface HashedMessage {
  role?: unknown;
  content?: unknown;
  name?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
}

/**
 * Content hashes memoised by message *object* (a WeakMap, so nothing outlives the request's
 * objects). Within one request the flags module and the engine hash the same objects; a
 * memo hit is only trusted when role, name, content and tool_call_id are still the same
 * values, and only plain-text messages (string content, no tool_calls) are memoised, since
 * strings cannot change in place.
 */
const memo = new WeakMap<object, MemoEntry>();

/** True when the message's hash may be memoised (immutable identity fields only). */
function memoisable(message: HashedMessage): boolean {
  return (typeof message.content === 'string' || message.content == null) && message.tool_calls === undefined;
}

/** The memoised hash of `message`, computing it with `compute` on a miss. */
export function memoisedHash(message: HashedMessage, compute: (message: HashedMessage) => string): string {
  if (!memoisable(message)) return compute(message);
  const entry = memo.get(message);
  if (entry && entry.content === message.content && entry.role === message.role && entry.name === message.name && entry.toolCallId === message.tool_call_id) {
    return entry.hash;
  }
  const hash = compute(message);
  memo.set(message, { role: message.role, name: message.name, content: message.content, toolCallId: message.tool_call_id, hash });
  return hash;
}
