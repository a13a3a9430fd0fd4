import { isRecord } from '../../../core/messages/chat-message.js';
import { contentText } from '../conversation/message-text.js';
import { detailsResults, replaceResults, TOOL_CALLS_BLOCK } from '../trim/details-blocks.js';
import { containsEntity } from '../trim/contains-entity.js';
import { extractEntities } from './extract-entities.js';

/** What one reply used of the history: the messages its entities came from, and the entities that name lines. */
export interface EchoRecord {
  /** Message id → score in (0, 1] (1: the message that holds most of the reply's rare entities). */
  messages: Record<string, number>;
  /** Entity → score in (0, 1]: found in a few lines of a long message (those lines are what the reply used). */
  terms: Record<string, number>;
}

/** Only the newest messages are searched (a reply uses what is recent; the outlet's work stays bounded). */
const MAX_SEARCHED = 500;
/** At most this many messages per reply. */
const MAX_MESSAGES = 16;
/** A message scoring under this share of the best one is not recorded. */
const MIN_SHARE = 0.2;
/** An entity in more than this share of the searched messages (and more than 3) says nothing about where it came from. */
const COMMON_SHARE = 0.1;
/** A message of at least this many lines is long: the lines of its entities are recorded. */
export const LONG_MESSAGE_LINES = 20;
/** An entity in more than this share of a long message's lines (and more than 3) does not name lines. */
const COMMON_LINE_SHARE = 0.01;

/** The text entities are searched in: the content's text, Open WebUI's tool-call blocks with their results decoded. */
function searchText(message: unknown): string {
  if (!isRecord(message)) return '';
  const text = contentText(message.content);
  if (message.role !== 'assistant' || !text.includes(TOOL_CALLS_BLOCK)) return text;
  // Each block's result decoded in place: its lines are lines again.
  return replaceResults(
    text,
    detailsResults(text).map(({ start, end, text: value }) => ({ start, end, value })),
  );
}

/** How many of `lines` contain `entity`, counting up to `limit + 1`. */
function linesWith(lines: readonly string[], entity: string, limit: number): number {
  let found = 0;
  for (const line of lines) {
    if (line.includes(entity) && containsEntity(line, entity)) found += 1;
    if (found > limit) break;
  }
  return found;
}

/**
 * The echo of one reply: its entities (`extractEntities`) found in the history (`messages`, with their `ids`, the
 * reply not among them). A message scores the sum of the rarity (1 / messages holding it) of the entities it
 * holds, relative to the best; entities found in too many messages are left out. In a long message (a tool
 * result, a pasted log: LONG_MESSAGE_LINES lines or more), an entity found in only a few of its lines is recorded
 * as a term: the trimmer prefers the lines that hold it. Pure; empty when the reply repeats nothing of the history.
 */
export function matchEcho(messages: readonly unknown[], ids: readonly string[], reply: string): EchoRecord {
  const record: EchoRecord = { messages: {}, terms: {} };
  const entities = extractEntities(reply);
  if (entities.length === 0) return record;
  const from = Math.max(0, messages.length - MAX_SEARCHED);
  const texts: string[] = [];
  const indexes: number[] = [];
  for (let index = from; index < messages.length; index += 1) {
    const message = messages[index];
    if (!isRecord(message) || message.role === 'system' || message.role === 'developer') continue;
    texts.push(searchText(message));
    indexes.push(index);
  }
  const common = Math.max(3, Math.floor(texts.length * COMMON_SHARE));
  const holders = entities.map((entity) => {
    const found: number[] = [];
    texts.forEach((text, position) => {
      if (text.includes(entity) && containsEntity(text, entity)) found.push(position);
    });
    return found.length > common ? [] : found;
  });
  const scores = new Float64Array(texts.length);
  holders.forEach((found) => {
    for (const position of found) scores[position]! += 1 / found.length;
  });
  const best = Math.max(0, ...scores);
  if (best <= 0) return record;
  const ranked = [...scores.keys()]
    .filter((position) => scores[position]! >= best * MIN_SHARE)
    .sort((a, b) => scores[b]! - scores[a]! || b - a)
    .slice(0, MAX_MESSAGES);
  for (const position of ranked) {
    const id = ids[indexes[position]!];
    if (id) record.messages[id] = scores[position]! / best;
    const lines = texts[position]!.split('\n');
    if (lines.length < LONG_MESSAGE_LINES) continue;
    const limit = Math.max(3, Math.floor(lines.length * COMMON_LINE_SHARE));
    entities.forEach((entity, which) => {
      if (!holders[which]!.includes(position)) return;
      const count = linesWith(lines, entity, limit);
      if (count > 0 && count <= limit) record.terms[entity] = Math.max(record.terms[entity] ?? 0, 1 / Math.sqrt(count));
    });
  }
  return record;
}
