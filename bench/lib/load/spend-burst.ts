import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { deletePrefixedKeys } from '../../../src/state/redis/delete-prefixed-keys.js';
import { startRedisSingle } from '../redis-topologies.js';
import { markdownTable } from '../table.js';
import { startBenchServer, type BenchServer } from './bench-server.js';

/**
 * The near-cap burst: users with a $0.10 monthly cap (role `burst`) who already spent $0.0975 or $0.05 of it;
 * 1, 16 or 32 clients each loop "inlet, then the reply's outlet" (a request of ~$0.0075: about 1,000 prompt
 * tokens of openai/gpt-4o and max_tokens 500, each reply using all 500) until their first 429. Prints the
 * month's final spend as % of the cap. On SQLite (one server) and across two replicas on one Redis (the clients
 * alternate between them): a redis-server of its own on a free port, or EUNOE_TEST_REDIS_URL (never whatever answers
 * on 6379); without redis-server that part is left out. Bounded: at most
 * MAX_ROUNDS requests per client.
 */

const CAP_USD = 0.1;
const MAX_ROUNDS = 50;
const MODEL = 'openai/gpt-4o'; // $2.50 / M prompt tokens, $10 / M completion tokens (the bundled price table)
const PROMPT = 'The quarterly report lists revenue by region and the notes explain each change. '.repeat(65);
const STARTS = [0.0975, 0.05];
const CLIENTS = [1, 16, 32];

interface BurstRow {
  backend: string;
  start: number;
  clients: number;
  admitted: number;
  rejected: number;
  spent: number;
}

async function post(url: string, apiKey: string, route: string, body: unknown): Promise<Response> {
  return fetch(`${url}${route}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** An accounting outlet for one reply with the provider's usage. */
function outletBody(userId: string, id: string, promptTokens: number, completionTokens: number) {
  return {
    user: { id: userId, email: `${userId}@example.com`, role: 'burst' },
    body: {
      model: MODEL,
      chat_id: `chat-${userId}`,
      id,
      messages: [
        { id: `${id}-q`, role: 'user', content: PROMPT },
        {
          id,
          role: 'assistant',
          content: `reply ${id}`,
          usage: {
            prompt_tokens: promptTokens,
            completion_tokens: completionTokens,
            total_tokens: promptTokens + completionTokens,
          },
        },
      ],
    },
  };
}

/** One user's burst: seed `start` USD, then `clients` looping clients over the servers; the final spend in USD. */
async function burst(
  servers: BenchServer[],
  apiKey: string,
  userId: string,
  start: number,
  clients: number,
): Promise<Omit<BurstRow, 'backend'>> {
  const first = servers[0]!;
  // $2.50 per million prompt tokens: `start` USD of prompt tokens, no completion.
  const seeded = await post(
    first.url,
    apiKey,
    '/accounting/filter/outlet',
    outletBody(userId, `${userId}-seed`, Math.round(start / 0.0000025), 0),
  );
  if (!seeded.ok) throw new Error(`seeding answered ${seeded.status}: ${await seeded.text()}`);
  let admitted = 0;
  let rejected = 0;
  let sequence = 0;
  const client = async (index: number) => {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const server = servers[(index + round) % servers.length]!;
      const id = `${userId}-${sequence++}`;
      const inlet = await post(server.url, apiKey, '/spend-limit/filter/inlet', {
        user: { id: userId, email: `${userId}@example.com`, role: 'burst' },
        body: {
          model: MODEL,
          max_tokens: 500,
          messages: [{ role: 'user', content: PROMPT }],
          metadata: { chat_id: `chat-${userId}`, message_id: id },
        },
      });
      await inlet.arrayBuffer();
      if (inlet.status === 429) {
        rejected++;
        return;
      }
      if (!inlet.ok) throw new Error(`inlet answered ${inlet.status}`);
      admitted++;
      // The reply on the other replica (when there are two), using all of max_tokens.
      const other = servers[(index + round + 1) % servers.length]!;
      const outlet = await post(other.url, apiKey, '/accounting/filter/outlet', outletBody(userId, id, 1000, 500));
      await outlet.arrayBuffer();
      if (!outlet.ok) throw new Error(`outlet answered ${outlet.status}`);
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, index) => client(index)));
  const usage = await fetch(`${first.url}/usage?user=${encodeURIComponent(userId)}&limit=1`, {
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  const totals = ((await usage.json()) as { totals: { cost: string } }).totals;
  return { start, clients, admitted, rejected, spent: Number(totals.cost) };
}

function prepare(codeRoot: string, root: string) {
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
  writeFileSync(
    path.join(valves, 'spend-limit.json'),
    JSON.stringify({ role_limits: { burst: { monthly_usd: CAP_USD } } }),
  );
  return { filters, valves };
}

async function runOn(
  backend: string,
  servers: BenchServer[],
  apiKey: string,
  tag: string,
  rows: BurstRow[],
): Promise<void> {
  for (const start of STARTS)
    for (const clients of CLIENTS) {
      const userId = `burst-${tag}-${start}-${clients}`;
      rows.push({ backend, ...(await burst(servers, apiKey, userId, start, clients)) });
    }
}

/**
 * Run the near-cap burst against `codeRoot` (servers of its own under `root`) and return the table,
 * with the largest final spend as % of the cap.
 */
export async function runSpendBurst(options: {
  codeRoot: string;
  root: string;
  apiKey: string;
}): Promise<{ table: string; worstPercent: number }> {
  const { codeRoot, root, apiKey } = options;
  const { filters, valves } = prepare(codeRoot, root);
  const rows: BurstRow[] = [];
  const tag = randomBytes(3).toString('hex');
  const common = { PIPELINES_API_KEY: apiKey, FILTERS_DIR: filters, VALVES_DIR: valves };
  const sqlite = await startBenchServer(codeRoot, { ...common, DATA_DIR: path.join(root, 'data-sqlite') });
  try {
    await runOn('sqlite (1 server)', [sqlite], apiKey, tag, rows);
  } finally {
    await sqlite.stop();
  }
  const own = process.env.EUNOE_TEST_REDIS_URL ? undefined : await startRedisSingle().catch(() => undefined);
  const redisUrl = process.env.EUNOE_TEST_REDIS_URL || own?.env.REDIS_URL;
  if (redisUrl) {
    const env = (name: string) => ({
      ...common,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: `eunoe-bench-burst-${tag}:`,
      DATA_DIR: path.join(root, `data-${name}`),
    });
    const replicas = await Promise.all([startBenchServer(codeRoot, env('a')), startBenchServer(codeRoot, env('b'))]);
    try {
      await runOn('redis (2 replicas)', replicas, apiKey, tag, rows);
    } finally {
      await Promise.all(replicas.map((replica) => replica.stop()));
      const admin = new Redis(redisUrl);
      await deletePrefixedKeys(admin, `eunoe-bench-burst-${tag}:`).finally(() => admin.disconnect());
      await own?.stop();
    }
  }
  const fmt = (value: number, digits: number) => value.toFixed(digits);
  const table = markdownTable(
    ['backend', 'spent before', 'clients', 'admitted', 'final spend', '% of $0.10 cap'],
    rows.map((row) => [
      row.backend,
      `$${fmt(row.start, 4)}`,
      String(row.clients),
      String(row.admitted),
      `$${fmt(row.spent, 4)}`,
      `${fmt((row.spent / CAP_USD) * 100, 1)} %`,
    ]),
  );
  return { table, worstPercent: Math.max(...rows.map((row) => (row.spent / CAP_USD) * 100)) };
}
