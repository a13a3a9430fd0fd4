import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { deletePrefixedKeys } from '../../../src/state/redis/delete-prefixed-keys.js';
import { outlet } from '../../../test/caps/helpers/near-cap-burst.js';
import { startBenchServer, type BenchServer } from './bench-server.js';

/**
 * What the near-cap bursts (spend-burst.ts, model-burst.ts) share: their requests (the inlet and outlet bodies of the
 * near-cap tests, test/caps/helpers/near-cap-burst.ts), filters and servers.
 */
export { inlet, outlet } from '../../../test/caps/helpers/near-cap-burst.js';

export async function post(url: string, apiKey: string, route: string, body: unknown): Promise<Response> {
  return fetch(`${url}${route}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Seed the month of `userId` (in `role`) with `usd` of openai/gpt-4o prompt tokens ($2.50 per million). */
export async function seedSpend(url: string, apiKey: string, userId: string, role: string, usd: number) {
  const usage = { prompt: Math.round(usd / 0.0000025), completion: 0 };
  const seeded = await post(
    url,
    apiKey,
    '/accounting/filter/outlet',
    outlet(userId, `${userId}-seed`, 'openai/gpt-4o', usage, role),
  );
  const text = await seeded.text();
  if (!seeded.ok) throw new Error(`seeding answered ${seeded.status}: ${text}`);
}

/** The user's recorded spend this month, USD. */
export async function spentOf(url: string, apiKey: string, userId: string): Promise<number> {
  const usage = await fetch(`${url}/usage?user=${encodeURIComponent(userId)}&limit=1`, {
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  return Number(((await usage.json()) as { totals: { cost: string } }).totals.cost);
}

/** The shipped spend-limit and accounting filters under `root`, run from `codeRoot`'s sources, and their valves. */
function prepare(codeRoot: string, root: string, spendLimitValves: unknown) {
  const filters = path.join(root, 'filters');
  const valves = path.join(root, 'valves');
  mkdirSync(filters, { recursive: true });
  mkdirSync(valves, { recursive: true });
  for (const name of ['spend-limit.ts', 'accounting.ts']) {
    const target = path.join(filters, name);
    copyFileSync(path.join(codeRoot, 'filters', name), target);
    writeFileSync(target, readFileSync(target, 'utf8').replaceAll("'../src/", `'${path.join(codeRoot, 'src')}/`));
  }
  writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
  writeFileSync(path.join(valves, 'spend-limit.json'), JSON.stringify(spendLimitValves));
  return { filters, valves };
}

/**
 * `run` on one SQLite server, then (when `redis` gives one) on two replicas of one Redis under `prefix` (its keys
 * removed after); servers of their own under `root`, running `codeRoot` with `spendLimitValves`.
 */
export async function onSqliteThenRedis(options: {
  codeRoot: string;
  root: string;
  apiKey: string;
  spendLimitValves: unknown;
  redis: () => Promise<{ url: string; stop?: () => Promise<void> } | undefined>;
  prefix: string;
  run: (backend: string, servers: BenchServer[]) => Promise<void>;
}): Promise<void> {
  const { codeRoot, root, apiKey, prefix, run } = options;
  const { filters, valves } = prepare(codeRoot, root, options.spendLimitValves);
  const common = { PIPELINES_API_KEY: apiKey, FILTERS_DIR: filters, VALVES_DIR: valves };
  const sqlite = await startBenchServer(codeRoot, { ...common, DATA_DIR: path.join(root, 'data-sqlite') });
  try {
    await run('sqlite (1 server)', [sqlite]);
  } finally {
    await sqlite.stop();
  }
  const redis = await options.redis();
  if (!redis) return;
  try {
    const env = (name: string) => ({
      ...common,
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix,
      DATA_DIR: path.join(root, `data-${name}`),
    });
    const replicas = await Promise.all([startBenchServer(codeRoot, env('a')), startBenchServer(codeRoot, env('b'))]);
    try {
      await run('redis (2 replicas)', replicas);
    } finally {
      await Promise.all(replicas.map((replica) => replica.stop()));
      const admin = new Redis(redis.url);
      await deletePrefixedKeys(admin, prefix).finally(() => admin.disconnect());
    }
  } finally {
    await redis.stop?.();
  }
}
