import { randomBytes } from 'node:crypto';
import { startRedisSingle } from '../redis-topologies.js';
import { markdownTable } from '../table.js';
import type { BenchServer } from './bench-server.js';
import { inlet, onSqliteThenRedis, outlet, post, seedSpend, spentOf } from './near-cap.js';

/**
 * The near-cap burst by kind of model: users with a $0.10 monthly cap who already spent $0.05 of it; 1, 32 or 64
 * clients each loop "the Pipelines inlets (spend-limit, then accounting), then the reply's accounting outlet" until
 * their first 429 (at most MAX_ROUNDS requests each). Every request is ~1,000 prompt tokens with max_tokens 500; every
 * reply uses 1,000 prompt + 500 completion tokens and costs $0.0075:
 * - priced: openai/gpt-4o ($2.50 / $10 per M in the bundled table);
 * - unpriced, reported cost: `newco/nova-1`, unknown to the price table, whose provider reports `usage.cost` $0.0075
 *   (seen once before the burst, in another user's reply);
 * - workspace: `acme-assistant`, built in Open WebUI on openai/gpt-4o: its inlet carries
 *   `metadata.model.info.base_model_id`, its outlet only `{model: "acme-assistant"}` as Open WebUI sends it.
 * Prints the month's recorded spend, what the admitted replies cost ($0.05 + $0.0075 each, whatever was recorded) and the
 * larger as % of the cap, against the bound 100 % + one reply ($0.0075 = 7.5 %). On SQLite
 * (one server) and, when a Redis answers, across two replicas on one Redis (each reply on the other replica).
 */

const CAP_USD = 0.1;
const START_USD = 0.05;
const REPLY_USD = 0.0075;
const MAX_ROUNDS = 50;
const CLIENTS = [1, 32, 64];
/** The bound: the cap plus one reply's cost, in % of the cap. */
export const BOUND_PERCENT = ((CAP_USD + REPLY_USD) / CAP_USD) * 100;

interface Kind {
  name: string;
  model: string;
  metadata?: Record<string, unknown>;
  outletModel: string;
  reportedCost?: number;
}

const KINDS: Kind[] = [
  { name: 'priced (openai/gpt-4o)', model: 'openai/gpt-4o', outletModel: 'openai/gpt-4o' },
  {
    name: 'unpriced, reported cost',
    model: 'newco/nova-1',
    outletModel: 'newco/nova-1',
    reportedCost: REPLY_USD,
  },
  {
    name: 'workspace (on openai/gpt-4o)',
    model: 'acme-assistant',
    metadata: { model: { id: 'acme-assistant', info: { base_model_id: 'openai/gpt-4o' } } },
    outletModel: 'acme-assistant',
  },
];

interface Row {
  backend: string;
  kind: string;
  clients: number;
  admitted: number;
  spent: number;
}

async function expectOk(response: Response, what: string): Promise<void> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${what} answered ${response.status}: ${text}`);
}

async function burst(servers: BenchServer[], apiKey: string, userId: string, kind: Kind, clients: number) {
  const first = servers[0]!;
  await seedSpend(first.url, apiKey, userId, 'user', START_USD);
  let admitted = 0;
  let sequence = 0;
  const client = async (index: number) => {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const server = servers[(index + round) % servers.length]!;
      const id = `${userId}-${sequence++}`;
      const envelope = inlet(userId, id, kind);
      const limited = await post(server.url, apiKey, '/spend-limit/filter/inlet', envelope);
      if (limited.status === 429) {
        await limited.arrayBuffer();
        return;
      }
      if (!limited.ok) throw new Error(`inlet answered ${limited.status}`);
      const body = await limited.json();
      await expectOk(
        await post(server.url, apiKey, '/accounting/filter/inlet', { user: envelope.user, body }),
        'accounting inlet',
      );
      admitted++;
      const other = servers[(index + round + 1) % servers.length]!;
      await expectOk(
        await post(
          other.url,
          apiKey,
          '/accounting/filter/outlet',
          outlet(userId, id, kind.outletModel, { prompt: 1000, completion: 500, cost: kind.reportedCost }),
        ),
        'outlet',
      );
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, index) => client(index)));
  return { admitted, spent: await spentOf(first.url, apiKey, userId) };
}

async function runOn(backend: string, servers: BenchServer[], apiKey: string, tag: string, rows: Row[]) {
  // The unpriced model has been seen once: another user's reply of 1,500 tokens reported at $0.0075.
  await expectOk(
    await post(
      servers[0]!.url,
      apiKey,
      '/accounting/filter/outlet',
      outlet(`teacher-${tag}`, `teacher-${tag}`, 'newco/nova-1', {
        prompt: 1000,
        completion: 500,
        cost: REPLY_USD,
      }),
    ),
    'the unpriced model seen once',
  );
  for (const [index, kind] of KINDS.entries())
    for (const clients of CLIENTS) {
      const userId = `model-burst-${tag}-${index}-${clients}`;
      rows.push({ backend, kind: kind.name, clients, ...(await burst(servers, apiKey, userId, kind, clients)) });
    }
}

/** Run the burst by kind of model against `codeRoot` (servers of its own under `root`): the table and the worst %. */
export async function runModelBurst(options: {
  codeRoot: string;
  root: string;
  apiKey: string;
}): Promise<{ table: string; worstPercent: number }> {
  const { codeRoot, root, apiKey } = options;
  const rows: Row[] = [];
  const tag = randomBytes(3).toString('hex');
  await onSqliteThenRedis({
    codeRoot,
    root,
    apiKey,
    spendLimitValves: { monthly_limit_usd: CAP_USD },
    // A redis-server of its own on a free port, or EUNOE_TEST_REDIS_URL (never whatever answers on 6379).
    redis: async () => {
      if (process.env.EUNOE_TEST_REDIS_URL) return { url: process.env.EUNOE_TEST_REDIS_URL };
      const own = await startRedisSingle().catch(() => undefined);
      return own && { url: own.env.REDIS_URL!, stop: own.stop };
    },
    prefix: `eunoe-bench-model-burst-${tag}:`,
    run: (backend, servers) => runOn(backend, servers, apiKey, tag, rows),
  });
  const fmt = (value: number, digits: number) => value.toFixed(digits);
  // What the replies cost (each $0.0075), whatever was recorded: a reply recorded at $0 still cost its owner.
  const owed = (row: Row) => START_USD + row.admitted * REPLY_USD;
  const percent = (row: Row) => (Math.max(row.spent, owed(row)) / CAP_USD) * 100;
  const table = markdownTable(
    ['backend', 'model', 'clients', 'admitted', 'recorded spend', 'cost of the replies', '% of $0.10 cap'],
    rows.map((row) => [
      row.backend,
      row.kind,
      String(row.clients),
      String(row.admitted),
      `$${fmt(row.spent, 4)}`,
      `$${fmt(owed(row), 4)}`,
      `${fmt(percent(row), 1)} %`,
    ]),
  );
  return { table, worstPercent: Math.max(...rows.map(percent)) };
}
