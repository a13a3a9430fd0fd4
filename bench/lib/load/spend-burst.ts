import { randomBytes } from 'node:crypto';
import { startRedisSingle } from '../redis-topologies.js';
import { markdownTable } from '../table.js';
import type { BenchServer } from './bench-server.js';
import { inlet, onSqliteThenRedis, outlet, post, seedSpend, spentOf } from './near-cap.js';

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

/** One user's burst: seed `start` USD, then `clients` looping clients over the servers; the final spend in USD. */
async function burst(
  servers: BenchServer[],
  apiKey: string,
  userId: string,
  start: number,
  clients: number,
): Promise<Omit<BurstRow, 'backend'>> {
  const first = servers[0]!;
  await seedSpend(first.url, apiKey, userId, 'burst', start);
  let admitted = 0;
  let rejected = 0;
  let sequence = 0;
  const client = async (index: number) => {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const server = servers[(index + round) % servers.length]!;
      const id = `${userId}-${sequence++}`;
      const limited = await post(
        server.url,
        apiKey,
        '/spend-limit/filter/inlet',
        inlet(userId, id, { model: MODEL }, 'burst'),
      );
      await limited.arrayBuffer();
      if (limited.status === 429) {
        rejected++;
        return;
      }
      if (!limited.ok) throw new Error(`inlet answered ${limited.status}`);
      admitted++;
      // The reply on the other replica (when there are two), using all of max_tokens.
      const other = servers[(index + round + 1) % servers.length]!;
      const recorded = await post(
        other.url,
        apiKey,
        '/accounting/filter/outlet',
        outlet(userId, id, MODEL, { prompt: 1000, completion: 500 }, 'burst'),
      );
      await recorded.arrayBuffer();
      if (!recorded.ok) throw new Error(`outlet answered ${recorded.status}`);
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, index) => client(index)));
  return { start, clients, admitted, rejected, spent: await spentOf(first.url, apiKey, userId) };
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
  const rows: BurstRow[] = [];
  const tag = randomBytes(3).toString('hex');
  await onSqliteThenRedis({
    codeRoot,
    root,
    apiKey,
    spendLimitValves: { role_limits: { burst: { monthly_usd: CAP_USD } } },
    // A redis-server of its own on a free port, or EUNOE_TEST_REDIS_URL (never whatever answers on 6379).
    redis: async () => {
      if (process.env.EUNOE_TEST_REDIS_URL) return { url: process.env.EUNOE_TEST_REDIS_URL };
      const own = await startRedisSingle().catch(() => undefined);
      return own && { url: own.env.REDIS_URL!, stop: own.stop };
    },
    prefix: `eunoe-bench-burst-${tag}:`,
    run: (backend, servers) => runOn(backend, servers, apiKey, tag, rows),
  });
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
