import { randomBytes } from 'node:crypto';
import { startRedisSingle } from '../redis-topologies.js';
import { markdownTable } from '../table.js';
import type { BenchServer } from './bench-server.js';
import { inlet, onSqliteThenRedis, outlet, post, seedSpend, spentOf } from './near-cap.js';

/**
 * The near-cap burst: users with a $0.10 monthly cap (role `burst`) who already spent $0.0975 or $0.05 of it;
 * 1, 16 or 32 clients each loop "inlet, then the reply's outlet" (a request of ~$0.0075: about 1,000 prompt
 * tokens of openai/gpt-4o and max_tokens 500, each reply using all 500) until their first 429. Prints the
 * month's final spend as % of the cap. Beside it the same burst against a group's cap: a group with a $0.10 monthly
 * cap shared by 8 members (`group_limits`, the members' requests carry the group as the generated Function sends it,
 * `user.groups`), already at $0.0975 or $0.05; client i sends as member i % 8; the final spend is the group's. On SQLite (one server) and across two replicas on one Redis (the clients
 * alternate between them): a redis-server of its own on a free port, or EUNOE_TEST_REDIS_URL (never whatever answers
 * on 6379); without redis-server that part is left out. Bounded: at most
 * MAX_ROUNDS requests per client.
 */

const CAP_USD = 0.1;
const MAX_ROUNDS = 50;
const MODEL = 'openai/gpt-4o'; // $2.50 / M prompt tokens, $10 / M completion tokens (the bundled price table)
const STARTS = [0.0975, 0.05];
const CLIENTS = [1, 16, 32];

const MEMBERS = 8;
const GROUP_ROLE = 'member'; // no cap of its own: only the group's holds

interface BurstRow {
  backend: string;
  cap: 'user' | 'group';
  start: number;
  clients: number;
  admitted: number;
  rejected: number;
  spent: number;
}

/** The group of a group burst, by its start and clients (one group each, so every burst starts from its seed). */
const groupName = (tag: string, start: number, clients: number) => `team-${tag}-${start}-${clients}`;

/** `envelope` with the user's groups (`user.groups`), as the generated Function sends them. */
function inGroup<T extends { user: Record<string, unknown> }>(envelope: T, group: string | undefined): T {
  return group ? { ...envelope, user: { ...envelope.user, groups: [{ id: `id-${group}`, name: group }] } } : envelope;
}

/**
 * One burst: seed `start` USD (for the first member), then `clients` looping clients over the servers, client i as
 * `members[i % members.length]` (with `group` on every call when set); the final spend of the members in USD.
 */
async function burst(
  servers: BenchServer[],
  apiKey: string,
  members: string[],
  start: number,
  clients: number,
  group?: string,
): Promise<Omit<BurstRow, 'backend' | 'cap'>> {
  const first = servers[0]!;
  const role = group ? GROUP_ROLE : 'burst';
  const seedUser = members[0]!;
  if (group) {
    const usage = { prompt: Math.round(start / 0.0000025), completion: 0 };
    const seeded = await post(
      first.url,
      apiKey,
      '/accounting/filter/outlet',
      inGroup(outlet(seedUser, `${seedUser}-seed`, 'openai/gpt-4o', usage, role), group),
    );
    if (!seeded.ok) throw new Error(`seeding answered ${seeded.status}: ${await seeded.text()}`);
    await seeded.arrayBuffer().catch(() => undefined);
  } else await seedSpend(first.url, apiKey, seedUser, role, start);
  let admitted = 0;
  let rejected = 0;
  let sequence = 0;
  const client = async (index: number) => {
    const userId = members[index % members.length]!;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const server = servers[(index + round) % servers.length]!;
      const id = `${userId}-${sequence++}`;
      const limited = await post(
        server.url,
        apiKey,
        '/spend-limit/filter/inlet',
        inGroup(inlet(userId, id, { model: MODEL }, role), group),
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
        inGroup(outlet(userId, id, MODEL, { prompt: 1000, completion: 500 }, role), group),
      );
      await recorded.arrayBuffer();
      if (!recorded.ok) throw new Error(`outlet answered ${recorded.status}`);
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, index) => client(index)));
  let spent = 0;
  for (const member of members) spent += await spentOf(first.url, apiKey, member);
  return { start, clients, admitted, rejected, spent };
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
      rows.push({ backend, cap: 'user', ...(await burst(servers, apiKey, [userId], start, clients)) });
      const group = groupName(tag, start, clients);
      const members = Array.from({ length: MEMBERS }, (_, index) => `${group}-m${index}`);
      rows.push({ backend, cap: 'group', ...(await burst(servers, apiKey, members, start, clients, group)) });
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
    spendLimitValves: {
      role_limits: { burst: { monthly_usd: CAP_USD } },
      group_limits: Object.fromEntries(
        STARTS.flatMap((start) => CLIENTS.map((clients) => [groupName(tag, start, clients), { monthly_usd: CAP_USD }])),
      ),
    },
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
    ['backend', 'cap', 'spent before', 'clients', 'admitted', 'final spend', '% of $0.10 cap'],
    rows.map((row) => [
      row.backend,
      row.cap === 'user' ? 'user' : `group of ${MEMBERS}`,
      `$${fmt(row.start, 4)}`,
      String(row.clients),
      String(row.admitted),
      `$${fmt(row.spent, 4)}`,
      `${fmt((row.spent / CAP_USD) * 100, 1)} %`,
    ]),
  );
  return { table, worstPercent: Math.max(...rows.map((row) => (row.spent / CAP_USD) * 100)) };
}
