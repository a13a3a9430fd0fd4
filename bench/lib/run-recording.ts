import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PlanResult } from '../../src/domain/engine/index.js';
import { silentLogger } from '../../src/core/util/logger.js';
import { createStateStore } from '../../src/state/create-state-store.js';
import { buildRunRecord } from '../../src/features/context/runs/run-record.js';
import { createRunStore, newRunId } from '../../src/features/context/runs/run-store.js';

const dir = mkdtempSync(path.join(tmpdir(), 'eunoe-bench-runs-'));
const store = await createStateStore({
  config: {
    sqlitePath: path.join(dir, 'state.db'),
    REDIS_URL: undefined,
    REDIS_PREFIX: 'eunoe:',
    STATE_TIMEOUT_MS: 500,
    LEDGER_QUEUE_MAX: 100,
  },
  logger: silentLogger(),
});
// Written only when the bench flushes (what the server's timer does every RUN_FLUSH_MS).
const runs = createRunStore(store, { flushMs: 3_600_000 });
/** The context filter's default retention (valves inspect_runs_per_chat, inspect_max_runs, inspect_ttl_hours). */
const RETENTION = { perChat: 20, max: 2000, ttlMs: 168 * 3_600_000 };

// Steady state: the list of all runs full (a busy server), so each write also pushes the oldest run out.
for (let index = 0; index < RETENTION.max; index++)
  await store.listPush('runs:all', newRunId(Date.UTC(2026, 0, 1) + index), { max: RETENTION.max });

const buildRecord = (result: PlanResult, messages: readonly unknown[]) =>
  buildRunRecord({
    id: newRunId(Date.now()),
    time: Date.now(),
    durationMs: 1,
    chat: 'bench-chat',
    user: 'bench-user',
    model: 'gpt-4o',
    inspect: 'structure',
    plan: result.plan,
    messages,
    flags: {},
    budgetSource: 'valve',
  });

/**
 * What recording one run costs the inlet, in ms: build the record from the plan (structure mode) and hand it to the
 * run store's buffer, as the context filter does. The buffer is written (and emptied) outside the timing.
 */
export async function recordingWork(result: PlanResult, messages: readonly unknown[]): Promise<number> {
  const started = performance.now();
  runs.record(buildRecord(result, messages), RETENTION);
  const work = performance.now() - started;
  await runs.flush();
  return work;
}

/**
 * What writing a buffered batch of `size` runs costs per run, in ms (median of `repeats` flushes): the records
 * of the warm plan, written to SQLite with their index entries (the list of all runs full).
 */
export async function batchWritePerRun(
  result: PlanResult,
  messages: readonly unknown[],
  size: number,
  repeats: number,
): Promise<number> {
  const times: number[] = [];
  for (let repeat = 0; repeat < repeats; repeat++) {
    for (let index = 0; index < size; index++) runs.record(buildRecord(result, messages), RETENTION);
    const started = performance.now();
    await runs.flush();
    times.push((performance.now() - started) / size);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}
