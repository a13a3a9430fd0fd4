/**
 * State layer benchmark: operations per second and latency percentiles of the hot-path
 * operations, for each backend, in one run. Each operation runs sequentially (one call in
 * flight, as a request handler does) for about DURATION_MS. Run: npm run bench:state
 * Redis: REDIS_URL or redis://127.0.0.1:6379, under a random `eunoe-bench:<id>:` prefix removed afterwards.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { deletePrefixedKeys } from '../src/state/redis/delete-prefixed-keys.js';
import { RedisStateStore } from '../src/state/redis/redis-state-store.js';
import { openSqliteDatabase } from '../src/state/sqlite/open-sqlite-database.js';
import { SqliteStateStore } from '../src/state/sqlite/sqlite-state-store.js';
import type { StateStore } from '../src/state/types.js';
import { silentLogger } from '../src/core/util/logger.js';

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 2000);
const MAX_ITERATIONS = 1_000_000;

interface Result {
  backend: string;
  operation: string;
  opsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  iterations: number;
}

const session = {
  flags: { budget: '8k', keep: ['sys'] },
  lastSent: Array.from({ length: 40 }, (_, index) => `msg-${index}-${'x'.repeat(8)}`),
};
const tokenKeys = Array.from({ length: 50 }, (_, index) => `tokens:o200k:${randomUUID()}:${index}`);

/** The hot-path operations; `i` makes each call distinct where it matters. */
const operations: Array<{
  name: string;
  setup?: (store: StateStore) => Promise<void>;
  run: (store: StateStore, i: number) => Promise<unknown>;
}> = [
  {
    name: 'session doc get',
    setup: (store) => store.set('session:chat-1', session, { ttlMs: 86_400_000 }),
    run: (store) => store.get('session:chat-1'),
  },
  {
    name: 'session doc set',
    run: (store, i) => store.set('session:chat-1', { ...session, turn: i }, { ttlMs: 86_400_000 }),
  },
  {
    name: 'token cache setMany x50',
    run: (store, i) =>
      store.setMany(tokenKeys.map((key, index) => ({ key, value: 100 + index + i, ttlMs: 3_600_000 }))),
  },
  { name: 'token cache getMany x50', run: (store) => store.getMany(tokenKeys) },
  { name: 'rate counter increment', run: (store) => store.increment('rate:user-1:minute', 1, { ttlMs: 60_000 }) },
  // The rate limit's sliding window (windowAdmit) of one user: full after the first N calls, so most calls are
  // refusals that read (and on SQLite parse) the N times kept.
  {
    name: 'rate window admit (N=60)',
    run: (store) => store.windowAdmit('rate-window:user-1', { limit: 60, windowMs: 60_000, now: Date.now() }),
  },
  {
    name: 'rate window admit (N=1000)',
    run: (store) => store.windowAdmit('rate-window:user-2', { limit: 1000, windowMs: 60_000, now: Date.now() }),
  },
  {
    name: 'ledger append',
    run: (store, i) =>
      store.append('ledger:user-1', {
        id: `m-${i}-${randomUUID()}`,
        time: Date.now(),
        data: { model: 'openai/gpt-5', promptTokens: 1200, completionTokens: 300, usd: 0.0042 },
      }),
  },
];

function percentile(sorted: Float64Array, fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

async function measure(backend: string, store: StateStore): Promise<Result[]> {
  const results: Result[] = [];
  for (const operation of operations) {
    await operation.setup?.(store);
    for (let i = 0; i < 200; i++) await operation.run(store, -i - 1); // warm-up
    const latencies = new Float64Array(MAX_ITERATIONS);
    const started = performance.now();
    let count = 0;
    while (count < MAX_ITERATIONS && performance.now() - started < DURATION_MS) {
      const before = performance.now();
      await operation.run(store, count);
      latencies[count++] = performance.now() - before;
    }
    const elapsed = performance.now() - started;
    const queued = store.health().queued ?? 0;
    if (queued > 0)
      console.log(
        `warning: ${backend} ${operation.name} left ${queued} ledger writes queued (backend was unreachable)`,
      );
    const sorted = latencies.subarray(0, count).sort();
    results.push({
      backend,
      operation: operation.name,
      opsPerSecond: (count / elapsed) * 1000,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      iterations: count,
    });
  }
  return results;
}

async function benchSqlite(): Promise<Result[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eunoe-bench-'));
  const file = path.join(dir, 'eunoe.db');
  const store = new SqliteStateStore({ db: openSqliteDatabase(file), file, logger: silentLogger() });
  try {
    return await measure('sqlite', store);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function benchRedis(): Promise<Result[]> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `eunoe-bench:${randomUUID().slice(0, 8)}:`;
  const store = new RedisStateStore({ url, prefix, logger: silentLogger(), timeoutMs: 2000, queueMax: 10_000 });
  const admin = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  admin.on('error', () => {});
  try {
    if (!(await store.waitUntilReady(3000))) {
      console.log(`redis: not reachable at ${url}; skipped (start redis-server or set REDIS_URL)`);
      return [];
    }
    return await measure('redis', store);
  } finally {
    await store.close();
    await admin
      .connect()
      .then(() => deletePrefixedKeys(admin, prefix))
      .catch(() => 0);
    admin.disconnect();
  }
}

function printTable(results: Result[]): void {
  const header = ['backend', 'operation', 'ops/s', 'p50 ms', 'p99 ms', 'calls'];
  const rows = results.map((result) => [
    result.backend,
    result.operation,
    result.opsPerSecond.toFixed(0),
    result.p50Ms.toFixed(3),
    result.p99Ms.toFixed(3),
    String(result.iterations),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => (column < 2 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join(' | ')} |`;
  console.log(line(header));
  console.log(
    `|${widths.map((width, column) => (column < 2 ? '-'.repeat(width + 2) : `${'-'.repeat(width + 1)}:`)).join('|')}|`,
  );
  for (const row of rows) console.log(line(row));
  const redis = new Map(
    results.filter((result) => result.backend === 'redis').map((result) => [result.operation, result]),
  );
  if (redis.size === 0) return;
  console.log('\nratio sqlite/redis (ops/s; >1 = SQLite faster, p99 <1 = SQLite tighter):');
  for (const sqlite of results.filter((result) => result.backend === 'sqlite')) {
    const other = redis.get(sqlite.operation);
    if (other)
      console.log(
        `  ${sqlite.operation.padEnd(26)} ops x${(sqlite.opsPerSecond / other.opsPerSecond).toFixed(2)}   p99 x${(sqlite.p99Ms / other.p99Ms).toFixed(2)}`,
      );
  }
}

console.log(
  `state benchmark: ${DURATION_MS} ms per operation, sequential calls, node ${process.version}, ${os.cpus().length} CPUs\n`,
);
printTable([...(await benchSqlite()), ...(await benchRedis())]);
