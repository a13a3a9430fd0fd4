/**
 * The echo loop's storage: after each reply (outlet), what it used of the history (`matchEcho`: the messages its
 * entities came from, and the entities that name a few lines of a long message) is merged into the chat's state
 * (`mergeEcho`: bounded, decaying); the next inlets read it back as the engine's `echo` input (`echoBoost`). Kept
 * per chat in the filter's state store like `!weight`s and the previous prompt. A store that does not answer means
 * no boost that turn (and a log line), never an error.
 */
import { z } from 'zod';
import { type ChatMessage, isRecord } from '../../../core/messages/chat-message.js';
import { contentText } from '../../../core/messages/last-user-message.js';
import type { Logger } from '../../../core/util/logger.js';
import { reportDegraded } from '../../../core/util/store-outage.js';
import {
  type EchoBoost,
  type EchoRecord,
  type EchoState,
  echoBoost,
  ECHO_MAX_MESSAGES,
  ECHO_MAX_TERMS,
  matchEcho,
  mergeEcho,
  messageIds,
  onlyDetailsBlocks,
  withoutDetailsBlocks,
} from '../../../domain/engine/index.js';
import type { ScopedState } from '../../../state/scoped-state.js';

/** The state of a chat idle for a week is forgotten (its scores would have decayed long before most such gaps). */
export const ECHO_TTL_MS = 7 * 86_400_000;

const item = z.object({ key: z.string().max(200), score: z.number().finite(), turn: z.number().int() });
/** Stored values are JSON someone else may have written: a value of another shape reads as none. */
const storedEcho = z.object({
  messages: z.array(item).max(ECHO_MAX_MESSAGES * 4),
  terms: z.array(item).max(ECHO_MAX_TERMS * 4),
});

const keyOf = (chatKey: string) => `echo:${chatKey}`;

/** The turn of a message list: its number of user messages (flag blocks and notes do not change it). */
export function turnOf(messages: readonly ChatMessage[]): number {
  let turns = 0;
  for (const message of messages) if (message?.role === 'user') turns += 1;
  return turns;
}

/**
 * The tool messages the next inlet will get for a message's `output` items. Open WebUI ≥ 0.10 gives the outlet each
 * assistant message with its Responses-style `output` (tool calls and results not expanded), and expands them
 * before the inlet (`convert_output_to_messages`, backend/open_webui/utils/misc.py, read in Open WebUI 0.10's
 * source): one `{role: "tool", tool_call_id: call_id, content}` per `function_call_output`, its content the
 * `input_text` parts joined. Built the same way, they get the ids the inlet's tool messages get.
 */
function outputToolResults(message: ChatMessage): ChatMessage[] {
  if (!Array.isArray(message.output)) return [];
  const results: ChatMessage[] = [];
  for (const item of message.output as unknown[]) {
    if (!isRecord(item) || item.type !== 'function_call_output') continue;
    let content = '';
    if (typeof item.output === 'string') content = item.output;
    else if (Array.isArray(item.output))
      for (const part of item.output)
        if (isRecord(part) && part.type === 'input_text') content += String(part.text ?? '');
    results.push({ role: 'tool', tool_call_id: String(item.call_id ?? ''), content });
  }
  return results;
}

/** The history as the next inlet sees it: each message, then the tool results its `output` expands to. */
function historyWithOutputs(messages: readonly ChatMessage[]): ChatMessage[] {
  if (!messages.some((message) => Array.isArray(message?.output))) return [...messages];
  return messages.flatMap((message) => [message, ...outputToolResults(message)]);
}

/** Reads the chat's state; `undefined` when it has none, or the store does not answer (logged). */
async function readEchoState(state: ScopedState, chatKey: string, logger: Logger): Promise<EchoState | undefined> {
  try {
    return storedEcho.safeParse(await state.get(keyOf(chatKey))).data;
  } catch (error) {
    reportDegraded(logger, 'could not read the echo state (no echo boost this turn)', error);
    return undefined;
  }
}

/** What reading or recording the echo needs: the valve, the chat, its messages and the filter's state. */
interface EchoArgs {
  enabled: boolean;
  chatKey: string;
  messages: readonly ChatMessage[];
  state: ScopedState;
  logger: Logger;
}

/** The echo boost for this inlet's `messages`; undefined when off, without a chat, with nothing stored or no store. */
export async function readEchoBoost(args: EchoArgs): Promise<EchoBoost | undefined> {
  if (!args.enabled || !args.chatKey) return undefined;
  return echoBoost(await readEchoState(args.state, args.chatKey, args.logger), turnOf(args.messages));
}

/**
 * What the reply (the last message) used of the history as the next inlet gets it: with the tool results of Open
 * WebUI's `output` items, the reply's own included. In Open WebUI 0.6.x the reply's own tool calls sit in its content
 * as `<details>` blocks: their results are searched under the reply's id, and only the text outside them is the reply.
 */
function replyEcho(messages: readonly ChatMessage[], reply: ChatMessage): EchoRecord {
  const history = historyWithOutputs(messages);
  const ids = messageIds(history);
  const text = contentText(reply.content);
  const blocks = onlyDetailsBlocks(text);
  const searched = history.map((message) => (message === reply ? { role: 'assistant', content: blocks } : message));
  return matchEcho(searched, ids, withoutDetailsBlocks(text));
}

/**
 * Records what the reply (the last message, when it is the assistant's) used of the history before it, merged into
 * the chat's state. Returns the boost the next turn will read (for the ahead-of-time plan), or undefined when off,
 * without a chat or reply, or when nothing was stored.
 */
export async function recordEcho(args: EchoArgs): Promise<EchoBoost | undefined> {
  const { messages, state, chatKey, logger } = args;
  const reply = messages.at(-1);
  if (!args.enabled || !chatKey || reply?.role !== 'assistant' || messages.length < 2) return undefined;
  const record = replyEcho(messages, reply);
  const fresh = Object.keys(record.messages).length > 0;
  const turn = turnOf(messages);
  const previous = await readEchoState(state, chatKey, logger);
  if (!fresh && !previous) return undefined;
  const merged = mergeEcho(previous, record, turn);
  try {
    await state.set(keyOf(chatKey), merged, { ttlMs: ECHO_TTL_MS });
  } catch (error) {
    reportDegraded(logger, 'could not save the echo state (no echo boost next turn)', error);
    return undefined;
  }
  logger.debug(
    { echoMessages: Object.keys(record.messages).length, echoTerms: Object.keys(record.terms).length },
    'echo loop: what the reply used',
  );
  return echoBoost(merged, turn + 1);
}
