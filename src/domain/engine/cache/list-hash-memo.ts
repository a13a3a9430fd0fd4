import { TwoGenerationMap } from './two-generation-map.js';
import type { LooseMessage } from '../../../core/messages/chat-message.js';

/** What was remembered of one message list: per message the fields its id comes from, and its hash. */
interface Remembered {
  roles: unknown[];
  names: unknown[];
  contents: unknown[];
  hashes: string[];
}

/** Lists remembered (by their first message): about one per active chat. */
const MEMO_GENERATION = 128;
const memo = new TwoGenerationMap<string, Remembered>(MEMO_GENERATION);

/** Contents longer than this are not remembered (hashed again each time): 256 lists must not hold huge texts. */
const REMEMBER_MAX_CHARS = 65_536;

/** A plain message whose identity is its role, name and string content (compared by value). */
function plain(message: LooseMessage): message is LooseMessage & { content: string } {
  return typeof message.content === 'string' && message.tool_calls === undefined && message.tool_call_id === undefined;
}

/**
 * The memo key of a list: its first two messages' roles and contents (cheap to hash: two messages). One
 * would not do: the chats of one workspace model all start with the same system prompt, and many chats
 * with the same "hi", and they would take each other's place in the memo on every turn.
 */
function keyOf(messages: readonly LooseMessage[]): string | undefined {
  const [first, second] = messages;
  // A list opening with a huge text is not remembered (its key would hold that text).
  if (!first || !plain(first) || first.content.length > REMEMBER_MAX_CHARS) return undefined;
  if (second && plain(second) && second.content.length > REMEMBER_MAX_CHARS) return undefined;
  const key = `${String(first.role)}\u0000${first.content}`;
  return second && plain(second) ? `${key}\u0000${String(second.role)}\u0000${second.content}` : key;
}

/**
 * The content hash of every message, reusing the hash of each plain message equal (role,
 * name, content compared by value) to the one at the same position in the previous list that
 * started with the same message. Open WebUI resends the whole history each turn, and comparing
 * strings (`===`, a memory compare) is far cheaper than hashing them again: only new or
 * changed messages are hashed (`hash`). The remembered list is updated in place.
 */
export function hashesWithListMemo(
  messages: readonly LooseMessage[],
  hash: (message: LooseMessage) => string,
): string[] {
  const key = keyOf(messages);
  let previous = key === undefined ? undefined : memo.get(key);
  const hashes: string[] = new Array(messages.length);
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    const same =
      previous !== undefined &&
      index < previous.hashes.length &&
      plain(message) &&
      message.content === previous.contents[index] &&
      message.role === previous.roles[index] &&
      message.name === previous.names[index];
    hashes[index] = same ? previous!.hashes[index]! : hash(message);
  }
  if (key === undefined) return hashes;
  if (previous === undefined) {
    previous = { roles: [], names: [], contents: [], hashes: [] };
    memo.set(key, previous);
  }
  previous.roles.length = previous.names.length = previous.contents.length = previous.hashes.length = messages.length;
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    previous.roles[index] = message.role;
    previous.names[index] = message.name;
    // Only a plain message's content is remembered: a tool call or result with the same role and content hashes
    // differently (its calls are part of its identity), so a plain message must not take its hash.
    previous.contents[index] =
      plain(message) && message.content.length <= REMEMBER_MAX_CHARS ? message.content : undefined;
    previous.hashes[index] = hashes[index]!;
  }
  return hashes;
}
