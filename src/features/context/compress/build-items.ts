import type { PlanResult } from '../../../domain/engine/index.js';
import { newestUserIndex } from '../../../domain/engine/index.js';
import type { SummaryLevel } from './summary-level.js';

/** Turns per segment; segments are aligned on absolute turn numbers so they stay stable as the chat grows. */
export const TURNS_PER_SEGMENT = 4;
/** A whole turn/segment is summarized (stable cache key) when at least this share of its tokens is to be summarized. */
export const HOME_SHARE = 0.5;

/** A group of messages summarized by one model call and cached as one entry. */
export interface SummaryChunk {
  level: SummaryLevel;
  /** Ids of the messages the summary is written from, in order (the cache key is derived from them). */
  ids: string[];
  indices: number[];
  /** Tokens of those messages. */
  tokens: number;
  /** Ids of the messages it replaces (marked `summarize`); the others of `ids` are also sent verbatim. */
  covers: string[];
}

interface Home {
  all: Array<{ id: string; index: number; tokens: number }>;
  summarized: Array<{ id: string; index: number; tokens: number }>;
  closed: boolean;
}

/** One chunk from a list of messages. */
function chunkOf(level: SummaryLevel, source: Home['all'], covers: Home['summarized']): SummaryChunk {
  return {
    level,
    ids: source.map((item) => item.id),
    indices: source.map((item) => item.index),
    tokens: source.reduce((sum, item) => sum + item.tokens, 0),
    covers: covers.map((item) => item.id),
  };
}

/** One thing to summarize: chunk options in preference order (the first is written on a miss), plus parts that may stand in for it. */
export interface SummaryItem {
  options: SummaryChunk[];
  /** Conversation level: the whole-segment summaries used instead when all are cached and the conversation summary is not. */
  parts?: SummaryChunk[];
}

/** Tokens of the summarize messages of a home as a share of all its tokens. */
function shareOf(home: Home): number {
  return (
    home.summarized.reduce((sum, item) => sum + item.tokens, 0) /
    Math.max(
      1,
      home.all.reduce((sum, item) => sum + item.tokens, 0),
    )
  );
}

/** Options for one home: the whole home first when mostly summarized, else just its `summarize` messages, the other as fallback. */
function homeItem(level: SummaryLevel, home: Home): SummaryItem {
  const exact = chunkOf(level, home.summarized, home.summarized);
  if (!home.closed) return { options: [exact] };
  const whole = chunkOf(level, home.all, home.summarized);
  if (whole.ids.length === exact.ids.length) return { options: [whole] };
  return { options: shareOf(home) >= HOME_SHARE ? [whole, exact] : [exact, whole] };
}

/**
 * What to summarize for `level`. Messages are grouped into their turn (a user message with its
 * answer and tool exchanges) or aligned segment of `TURNS_PER_SEGMENT` turns. A closed group
 * mostly to be summarized is summarized whole, whatever the query kept of it, so its key is the
 * same on later turns and ahead of time; the exact `summarize` messages are the fallback (and
 * vice versa). At `conversation` level the mostly-summarized groups form one chunk, with their
 * segment summaries as stand-in. Original order.
 */
export function buildItems(result: PlanResult, messages: readonly unknown[], level: SummaryLevel): SummaryItem[] {
  const homes = new Map<number, Home>();
  const lastUser = newestUserIndex(messages);
  let turn = -1;
  for (const entry of result.plan.entries) {
    if (entry.role === 'user') turn += 1;
    if (entry.role === 'system' || entry.role === 'developer') continue;
    const at = Math.max(0, turn);
    const key = level === 'turn' ? at : Math.floor(at / TURNS_PER_SEGMENT);
    const home = homes.get(key) ?? { all: [], summarized: [], closed: true };
    homes.set(key, home);
    const item = { id: entry.id, index: entry.index, tokens: entry.tokens };
    home.all.push(item);
    if (entry.disposition === 'summarize') home.summarized.push(item);
    if (entry.index === lastUser) home.closed = false;
  }
  const active = [...homes.values()].filter((home) => home.summarized.length > 0);
  if (level !== 'conversation') return active.map((home) => homeItem(level, home));
  const whole = active.filter((home) => home.closed && shareOf(home) >= HOME_SHARE);
  const rest = active.filter((home) => !whole.includes(home)).map((home) => homeItem('segment', home));
  if (whole.length === 0) return rest;
  const conversation = {
    options: [
      chunkOf(
        'conversation',
        whole.flatMap((home) => home.all),
        whole.flatMap((home) => home.summarized),
      ),
    ],
    parts: whole.map((home) => chunkOf('segment', home.all, home.summarized)),
  };
  return [conversation, ...rest].sort((a, b) => a.options[0]!.indices[0]! - b.options[0]!.indices[0]!);
}
