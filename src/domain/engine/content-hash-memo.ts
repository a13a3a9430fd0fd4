import { TwoGenerationMap } from './cache/two-generation-map.js';
import type { LooseMessage } from '../../core/messages/chat-message.js';

/** Plain-text hashes remembered per role and name (50,000 texts a generation, at most twice that). */
const MEMO_GENERATION = 50_000;
/**
 * Longer texts are hashed every time, not remembered: looking one up reads it whole anyway, and a memo of
 * 100,000 texts must not hold huge ones (100 different 20 MB messages would be 2 GB).
 */
export const MEMO_MAX_CHARS = 65_536;
const memos = new Map<unknown, Map<unknown, TwoGenerationMap<string, string>>>();
let namedMemos = 0;

/**
 * Content hashes of plain-text messages (string content, no tool fields) memoised by *value*:
 * role and name pick a memo, the content string is the key. Open WebUI resends the whole
 * history as new JSON each turn, so a memo by object would miss every time; a string-keyed
 * lookup costs V8's native string hash instead of a sha256 per message. Other messages
 * (parts, images, tool calls) are hashed every time.
 */
export function memoisedHash(message: LooseMessage, compute: (message: LooseMessage) => string): string {
  const { content } = message;
  if (
    typeof content !== 'string' ||
    content.length > MEMO_MAX_CHARS ||
    message.tool_calls !== undefined ||
    message.tool_call_id !== undefined
  )
    return compute(message);
  const name = typeof message.name === 'string' ? message.name : '';
  let byName = memos.get(message.role);
  if (byName === undefined) {
    if (memos.size >= 16) {
      // Roles are few; anything else is not worth remembering.
      memos.clear();
      namedMemos = 0;
    }
    byName = new Map();
    memos.set(message.role, byName);
  }
  let memo = byName.get(name);
  if (memo === undefined) {
    // A bounded number of role/name pairs: an API caller sending random names cannot grow it without end.
    if (namedMemos >= 1024) {
      memos.clear();
      namedMemos = 0;
    }
    memo = new TwoGenerationMap(MEMO_GENERATION);
    byName.set(name, memo);
    namedMemos += 1;
  }
  let hash = memo.get(content);
  if (hash === undefined) {
    hash = compute(message);
    memo.set(content, hash);
  }
  return hash;
}
