import { escapeHtml } from '../../../src/domain/engine/trim/details-blocks.js';
import type { Message } from './flag-chats.js';
import { EVIDENCE, syslogText } from '../../helpers/syslog.js';

/**
 * A chat whose tool read a 2,500-line system log with one line that answers the question (line 1,300), in both shapes
 * Open WebUI gives a filter (open-webui/open-webui backend/open_webui/utils/middleware.py, stored at commit
 * 000032ed1cfec98667bbf62795b0f8e0c76025b5): `role: "tool"` messages after an assistant `tool_calls` message (0.10+)
 * and a `<details type="tool_calls" … result="…">` block inside the assistant's content (0.6.x).
 */
export { EVIDENCE };
export const LOG = syslogText(2500, 1300, { sameMinute: true });
export const QUESTION = { role: 'user', content: 'Which controller overheated, and what was its error code?' };
const ASK = { role: 'user', content: 'Show me the system log of the server.' };
const SEEN = 'The log shows routine session starts and one kernel warning.';

/** The 0.10+ shape: a system message, the call, its `role: "tool"` result, the assistant's words, the question. */
export const toolChat = (): Message[] => [
  { role: 'system', content: 'You are a helpful assistant.' },
  ASK,
  {
    role: 'assistant',
    content: '',
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_log', arguments: '{}' } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: LOG },
  { role: 'assistant', content: SEEN },
  QUESTION,
];

/** The 0.6.x shape: the call and its result as a `<details>` block in the assistant's content, then the question. */
export const detailsChat = (): Message[] => [
  ASK,
  {
    role: 'assistant',
    content:
      `<details type="tool_calls" done="true" id="call_1" name="read_log" arguments="${escapeHtml('{}')}" result="${escapeHtml(JSON.stringify(LOG))}" files="" embeds="[]">\n` +
      `<summary>Tool Executed</summary>\n</details>\n${SEEN}`,
  },
  QUESTION,
];
