import { isRecord } from '../../../core/messages/chat-message.js';
import type { Conversation } from '../conversation/chat-node.js';
import { countMessageTokens } from '../tokens/count-message-tokens.js';
import type { TokenCounter } from '../tokens/load-encoder.js';
import { queryTerms } from '../weighting/query-terms.js';
import type { EngineOptions, PlanEntry } from '../types.js';
import { detailsResults, encodeResult, replaceResults, TOOL_CALLS_BLOCK } from './details-blocks.js';
import { type EchoTerms, type TrimMemo, trimText, type TrimmedText } from './trim-text.js';

/** What trimming does when the options say nothing: tool results on, other texts off, from 1000 tokens, a quarter of the budget each. */
export const TRIM_DEFAULTS = {
  trimToolResults: true,
  trimLongMessages: false,
  trimMinTokens: 1000,
  trimShare: 0.25,
} as const;

/** Smallest size a message is trimmed to, in tokens (below it, head and tail alone would say little). */
const MIN_TARGET_TOKENS = 200;

/** What trimming did to one message. */
export interface TrimmedMessage {
  /** Input index. */
  index: number;
  /** The input message's id: the copy keeps it (pins, `!weight`, the previous prompt, the run inspector). */
  id: string;
  /** The message sent instead of the input one (a copy with a shorter content). */
  message: Record<string, unknown>;
  /** Tokens of the input message. */
  tokensBefore: number;
  /** Tokens of the copy before the correction factor (what a token cache holds for it). */
  rawTokens: number;
  leftOut: number;
  unit: 'lines' | 'items';
  /** `tool`: a tool result message; `details`: results inside Open WebUI's tool-call blocks; `message`: a long text. */
  shape: 'tool' | 'details' | 'message';
}

/** The outcome of trimming a conversation: the messages to plan with, and what was trimmed. */
export interface TrimOutcome {
  messages: unknown[];
  trimmed: TrimmedMessage[];
  /** Tokens of the input conversation (before trimming), reply priming included. */
  tokensBefore: number;
  /** The ids of the input messages, by index: the trimmed copies keep theirs. */
  ids: string[];
}

/** What `trimLongMessages` reads of the plan in progress. */
export interface TrimInput {
  messages: readonly unknown[];
  conversation: Conversation;
  tokens: ArrayLike<number>;
  tokensBefore: number;
  /** What selection aims for (Infinity = no budget). */
  aim: number;
  options: EngineOptions;
  encoder: TokenCounter;
  correction: number;
  /** The echo loop's entities (`PlanInput.echo.terms`): lines holding them are preferred. */
  echo?: EchoTerms;
  /** The encoding's name: with it, each text's lines, terms and token costs are remembered by message id (`TrimMemo`). */
  encoding?: string;
}

/** The name of the tool each call id calls, from the assistant messages' `tool_calls`. */
function toolNames(messages: readonly unknown[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (!isRecord(message) || !Array.isArray(message.tool_calls)) continue;
    for (const call of message.tool_calls)
      if (isRecord(call) && typeof call.id === 'string' && isRecord(call.function))
        names.set(call.id, String(call.function.name ?? ''));
  }
  return names;
}

/** Size of a message's share of the budget: what a longer one is cut to. */
export function trimTarget(aim: number, options: Pick<EngineOptions, 'trimShare'>): number {
  return Math.max(MIN_TARGET_TOKENS, Math.floor(aim * (options.trimShare ?? TRIM_DEFAULTS.trimShare)));
}

/**
 * Trims the long messages of earlier turns when the conversation is over budget: a tool result (a `tool` message,
 * or the `result` of an Open WebUI tool-call block in an assistant message) longer than both `trimMinTokens` and its
 * share of the budget (`trimShare` of it) is cut to that share: its head, the lines that match the question with
 * their neighbours, its tail, and a marker per gap. With `trimLongMessages`, user and assistant texts too. Messages
 * of the current turn (the newest user message and everything after it: the running tool loop) are never trimmed,
 * nor results of the tools in `trimExcludeTools`. Undefined when nothing is trimmed.
 */
export function trimLongMessages(input: TrimInput): TrimOutcome | undefined {
  const { conversation, tokens, options, aim } = input;
  const toolsOn = options.trimToolResults !== false;
  const textsOn = options.trimLongMessages === true;
  if ((!toolsOn && !textsOn) || !Number.isFinite(aim) || input.tokensBefore <= aim) return undefined;
  const target = trimTarget(aim, options);
  const threshold = Math.max(options.trimMinTokens ?? TRIM_DEFAULTS.trimMinTokens, target);
  const end = conversation.lastUserIndex;
  let candidates: number[] | undefined;
  for (let index = 0; index < end; index += 1)
    if (tokens[index]! > threshold && !conversation.nodes[index]!.isSystem) (candidates ??= []).push(index);
  if (!candidates) return undefined;
  const excluded = new Set((options.trimExcludeTools ?? []).map((name) => name.trim()).filter(Boolean));
  const terms = new Set(queryTerms(end >= 0 ? conversation.nodes[end]!.text : ''));
  const factor = input.correction;
  const count = (text: string) => Math.ceil(input.encoder.count(text) * factor);
  const names = excluded.size > 0 ? toolNames(input.messages) : new Map<string, string>();
  const echo = input.echo && Object.keys(input.echo).length > 0 ? input.echo : undefined;
  const trimmed: TrimmedMessage[] = [];
  const counter = input.encoding === undefined ? undefined : `${input.encoding}:${factor}`;
  for (const index of candidates) {
    const { message, id } = conversation.nodes[index]!;
    const memo: TrimMemo | undefined = counter === undefined ? undefined : { key: id, counter };
    if (!isRecord(message) || typeof message.content !== 'string') continue;
    const overhead = Math.ceil(countMessageTokens({ ...message, content: '' }, input.encoder) * factor);
    const room = Math.max(0, target - overhead);
    let result:
      | { content: string; leftOut: number; unit: 'lines' | 'items'; shape: TrimmedMessage['shape'] }
      | undefined;
    if (message.role === 'tool') {
      if (!toolsOn) continue;
      const name =
        typeof message.name === 'string' ? message.name : (names.get(String(message.tool_call_id ?? '')) ?? '');
      if (excluded.has(name)) continue;
      const cut = trimText(message.content, terms, room, count, echo, memo);
      if (cut) result = { content: cut.text, leftOut: cut.leftOut, unit: cut.unit, shape: 'tool' };
    } else if (message.role === 'assistant' && toolsOn && message.content.includes(TOOL_CALLS_BLOCK)) {
      result = trimDetails(message.content, terms, room, count, excluded, echo, memo);
    }
    if (!result && textsOn && (message.role === 'user' || message.role === 'assistant')) {
      const cut = trimText(message.content, terms, room, count, echo, memo);
      if (cut) result = { content: cut.text, leftOut: cut.leftOut, unit: cut.unit, shape: 'message' };
    }
    if (!result) continue;
    const copy: Record<string, unknown> = { ...message, content: result.content };
    const rawTokens = countMessageTokens(copy, input.encoder);
    const after = Math.ceil(rawTokens * factor);
    if (after >= tokens[index]!) continue;
    trimmed.push({
      index,
      id: conversation.nodes[index]!.id,
      message: copy,
      tokensBefore: tokens[index]!,
      rawTokens,
      leftOut: result.leftOut,
      unit: result.unit,
      shape: result.shape,
    });
  }
  if (trimmed.length === 0) return undefined;
  const messages = [...input.messages];
  for (const item of trimmed) messages[item.index] = item.message;
  return { messages, trimmed, tokensBefore: input.tokensBefore, ids: conversation.nodes.map((node) => node.id) };
}

/** The results inside an assistant message's tool-call blocks, each long one cut to its part of `room`. */
function trimDetails(
  content: string,
  terms: ReadonlySet<string>,
  room: number,
  count: (text: string) => number,
  excluded: ReadonlySet<string>,
  echo: EchoTerms | undefined,
  memo: TrimMemo | undefined,
): { content: string; leftOut: number; unit: 'lines' | 'items'; shape: 'details' } | undefined {
  const results = detailsResults(content).filter((result) => !excluded.has(result.name));
  if (results.length === 0) return undefined;
  const sizes = results.map((result) => count(result.text));
  const outside = count(
    replaceResults(
      content,
      results.map(({ start, end }) => ({ start, end, value: '' })),
    ),
  );
  const share = Math.max(MIN_TARGET_TOKENS / 2, Math.floor((room - Math.min(outside, room / 2)) / results.length));
  const replacements: { start: number; end: number; value: string }[] = [];
  let leftOut = 0;
  let unit: TrimmedText['unit'] = 'lines';
  results.forEach((result, position) => {
    if (sizes[position]! <= share) return;
    const cut = trimText(
      result.text,
      terms,
      share,
      count,
      echo,
      memo && { key: `${memo.key}#${position}`, counter: memo.counter },
    );
    if (!cut) return;
    replacements.push({ start: result.start, end: result.end, value: encodeResult(cut.text, result.wasString) });
    leftOut += cut.leftOut;
    unit = cut.unit;
  });
  if (replacements.length === 0) return undefined;
  return { content: replaceResults(content, replacements), leftOut, unit, shape: 'details' };
}

/** Marks the plan entries of the trimmed messages (`trimmed`) and words their reason. */
export function markTrimmed(entries: PlanEntry[], outcome: TrimOutcome): void {
  for (const item of outcome.trimmed) {
    const entry = entries[item.index];
    if (!entry) continue;
    entry.trimmed = { tokensBefore: item.tokensBefore, leftOut: item.leftOut, unit: item.unit };
    if (entry.disposition === 'keep' || entry.disposition === 'pinned')
      entry.reason = `${entry.reason}; trimmed from ${item.tokensBefore.toLocaleString('en-US')} tokens (${item.leftOut.toLocaleString('en-US')} ${item.unit} left out)`;
  }
}
