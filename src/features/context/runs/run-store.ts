/**
 * Run records in the state store, so every replica sees every run: each run is two documents (its head for the
 * listing, the whole record for its page) with a TTL, listed by two capped lists of ids (all runs, and the chat's;
 * `listPush` is atomic on both backends, so replicas recording at once lose none of each other's runs).
 * Retention: the latest `perChat` runs of a chat, the latest `max` runs overall, each for `ttlMs`.
 */
import { randomBytes } from 'node:crypto';
import type { StateStore } from '../../../state/types.js';
import { expandRun, headOf, type RunHead, type RunRecord, type StoredRun } from './run-record.js';

/** How many runs are kept, and for how long. */
export interface RunRetention {
  /** The latest runs of one chat. */
  perChat: number;
  /** The latest runs of all chats. */
  max: number;
  ttlMs: number;
}

/** A page of the listing: newest first. */
export interface RunQuery {
  chat?: string;
  user?: string;
  model?: string;
  limit: number;
  /** A run id: only runs older than it (the previous page's `next`). */
  before?: string;
}

/** Runs, newest first; `next` is the `before` of the following page (null on the last page). */
export interface RunPage {
  runs: RunHead[];
  next: string | null;
}

/** The context feature's run records (a provided service: the filter records, the routes read). */
export interface RunStore {
  record(run: StoredRun, retention: RunRetention): Promise<void>;
  list(query: RunQuery): Promise<RunPage>;
  get(id: string): Promise<RunRecord | undefined>;
}

/** A run id: the time in base 36 (fixed width, so ids sort by time) and 8 random hex digits. */
export function newRunId(time: number): string {
  return `${Math.max(0, Math.floor(time)).toString(36).padStart(9, '0')}-${randomBytes(4).toString('hex')}`;
}

/** The shape `newRunId` makes; anything else names no run. */
export const RUN_ID = /^[0-9a-z]{9}-[0-9a-f]{8}$/;

const ALL = 'runs:all';
const chatIndex = (chat: string) => `runs:chat:${chat}`;
const headKey = (id: string) => `runs:head:${id}`;
const runKey = (id: string) => `runs:run:${id}`;
/** Heads read per round trip while filtering a listing. */
const BATCH = 100;

/** Run records on a state store. */
export function createRunStore(store: StateStore): RunStore {
  const forget = async (ids: readonly string[]) => {
    if (ids.length > 0) await store.deleteMany(ids.flatMap((id) => [headKey(id), runKey(id)]));
  };
  return {
    async record(run, retention) {
      await store.setMany([
        { key: headKey(run.id), value: headOf(run), ttlMs: retention.ttlMs },
        { key: runKey(run.id), value: run, ttlMs: retention.ttlMs },
      ]);
      const { ttlMs } = retention;
      const [overall, ofChat] = await Promise.all([
        store.listPush(ALL, run.id, { max: retention.max, ttlMs }),
        run.chat ? store.listPush(chatIndex(run.chat), run.id, { max: retention.perChat, ttlMs }) : [],
      ]);
      await forget([...new Set([...overall, ...ofChat])]);
    },

    async list(query) {
      const ids = (await store.listRange(query.chat !== undefined ? chatIndex(query.chat) : ALL))
        .filter((id) => query.before === undefined || id < query.before)
        .sort()
        .reverse();
      const runs: RunHead[] = [];
      let position = 0;
      while (position < ids.length && runs.length < query.limit) {
        const start = position;
        const heads = await store.getMany<RunHead>(ids.slice(start, start + BATCH).map(headKey));
        for (const [offset, head] of heads.entries()) {
          position = start + offset + 1;
          if (!head) continue;
          if (query.user !== undefined && head.user !== query.user) continue;
          if (query.model !== undefined && head.model !== query.model) continue;
          runs.push(head);
          if (runs.length === query.limit) break;
        }
      }
      const more = runs.length === query.limit && position < ids.length;
      return { runs, next: more ? runs.at(-1)!.id : null };
    },

    async get(id) {
      if (!RUN_ID.test(id)) return undefined;
      const stored = await store.get<StoredRun>(runKey(id));
      return stored?.columns ? expandRun(stored) : undefined;
    },
  };
}
