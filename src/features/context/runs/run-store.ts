/**
 * Run records in the state store, so every replica sees every run: each run is two documents (its head for the
 * listing, the whole record for its page) with a TTL, listed by two capped lists of ids (all runs, and the chat's;
 * list pushes are atomic on both backends, so replicas recording at once lose none of each other's runs).
 * Retention: the latest `perChat` runs of a chat, the latest `max` runs overall, each for `ttlMs`.
 * Records are buffered (`run-buffer.ts`) and written a batch at a time; reads write the buffer first.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../../core/util/logger.js';
import type { ListPush, StateStore } from '../../../state/types.js';
import { createRunBuffer } from './run-buffer.js';
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
  /** Buffers the run; it reaches the store within the flush interval, at the next read, or at `flush`. */
  record(run: StoredRun, retention: RunRetention): void;
  /** Writes the buffered runs now (at shutdown; reads do it themselves); never rejects. */
  flush(): Promise<void>;
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

/** One buffered run with the retention of the filter that recorded it. */
interface QueuedRun {
  run: StoredRun;
  retention: RunRetention;
}

/** Writes a batch of runs: their documents, their index entries (one atomic step), then what retention pushed out. */
async function writeRuns(store: StateStore, batch: readonly QueuedRun[]): Promise<void> {
  await store.setMany(
    batch.flatMap(({ run, retention }) => [
      { key: headKey(run.id), value: headOf(run), ttlMs: retention.ttlMs },
      { key: runKey(run.id), value: run, ttlMs: retention.ttlMs },
    ]),
  );
  const pushes = batch.flatMap(({ run, retention: { max, perChat, ttlMs } }): ListPush[] => [
    { key: ALL, item: run.id, options: { max, ttlMs } },
    ...(run.chat ? [{ key: chatIndex(run.chat), item: run.id, options: { max: perChat, ttlMs } }] : []),
  ]);
  const evicted = new Set((await store.listPushMany(pushes)).flat());
  if (evicted.size > 0) await store.deleteMany([...evicted].flatMap((id) => [headKey(id), runKey(id)]));
}

/** Run records on a state store (buffered writes: `flushMs`, default RUN_FLUSH_MS). */
export function createRunStore(store: StateStore, options: { logger?: Logger; flushMs?: number } = {}): RunStore {
  const buffer = createRunBuffer<QueuedRun>({ write: (batch) => writeRuns(store, batch), ...options });
  return {
    record(run, retention) {
      buffer.add({ run, retention });
    },

    flush: buffer.flush,

    async list(query) {
      await buffer.flush();
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
      await buffer.flush();
      const stored = await store.get<StoredRun>(runKey(id));
      return stored?.columns ? expandRun(stored) : undefined;
    },
  };
}
