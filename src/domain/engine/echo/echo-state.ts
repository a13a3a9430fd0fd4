import type { EchoBoost } from '../types.js';
import type { EchoRecord } from './match-echo.js';

/**
 * The echo loop's state for one chat: what the replies of its recent turns used (messages by id, line-naming
 * entities by text), each with the turn it was recorded at. Pure: the feature layer stores it.
 */
export interface EchoState {
  messages: EchoItem[];
  terms: EchoItem[];
}

/** One remembered message id or entity: its score when recorded, and the turn (user messages up to the reply). */
export interface EchoItem {
  key: string;
  score: number;
  turn: number;
}

/** A score halves every this many turns: a reply's echo counts fully on the next turn, half three turns later. */
export const ECHO_HALF_LIFE_TURNS = 3;
/** Below this decayed score an item is forgotten (after 12 turns for a score of 1). */
export const ECHO_FLOOR = 1 / 16;
/** At most this many messages and this many entities per chat (the strongest after decay). */
export const ECHO_MAX_MESSAGES = 64;
export const ECHO_MAX_TERMS = 64;

/**
 * `score` recorded at turn `recorded`, seen by the inlet of turn `turn` (its number of user messages): the turn
 * right after the reply (`recorded + 1`) sees it whole, then it halves every ECHO_HALF_LIFE_TURNS turns.
 */
export function decayed(score: number, recorded: number, turn: number): number {
  const age = Math.max(0, turn - recorded - 1);
  return score * 0.5 ** (age / ECHO_HALF_LIFE_TURNS);
}

/** Items merged (one per key, the strongest at `turn`), the forgotten left out, the strongest `cap` kept. */
function mergeItems(previous: readonly EchoItem[], fresh: readonly EchoItem[], turn: number, cap: number): EchoItem[] {
  const byKey = new Map<string, { item: EchoItem; now: number }>();
  for (const item of [...previous, ...fresh]) {
    const now = decayed(item.score, item.turn, turn);
    if (!(now >= ECHO_FLOOR)) continue;
    const seen = byKey.get(item.key);
    if (!seen || now > seen.now) byKey.set(item.key, { item, now });
  }
  return [...byKey.values()]
    .sort((a, b) => b.now - a.now || b.item.turn - a.item.turn || (a.item.key < b.item.key ? -1 : 1))
    .slice(0, cap)
    .map(({ item }) => item);
}

/** The chat's state after the reply of turn `turn` (its number of user messages) added `record`; bounded. */
export function mergeEcho(previous: EchoState | undefined, record: EchoRecord, turn: number): EchoState {
  const items = (scores: Record<string, number>) =>
    Object.entries(scores).map(([key, score]) => ({ key, score, turn }));
  // Decay is judged at the next turn, the first that reads the state.
  return {
    messages: mergeItems(previous?.messages ?? [], items(record.messages), turn + 1, ECHO_MAX_MESSAGES),
    terms: mergeItems(previous?.terms ?? [], items(record.terms), turn + 1, ECHO_MAX_TERMS),
  };
}

/** What the inlet of turn `turn` gives the engine: the decayed scores above the floor; undefined when none. */
export function echoBoost(state: EchoState | undefined, turn: number): EchoBoost | undefined {
  if (!state) return undefined;
  const boost = { messages: {} as Record<string, number>, terms: {} as Record<string, number> };
  let any = false;
  for (const [items, into] of [
    [state.messages, boost.messages],
    [state.terms, boost.terms],
  ] as const) {
    for (const item of items) {
      const now = decayed(item.score, item.turn, turn);
      if (now >= ECHO_FLOOR && now > (into[item.key] ?? 0)) {
        into[item.key] = Math.min(1, now);
        any = true;
      }
    }
  }
  return any ? (boost satisfies EchoBoost) : undefined;
}
