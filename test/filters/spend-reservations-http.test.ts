import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { deleteRedisPrefix } from '../usage/helpers/ledger-fixtures.js';

/**
 * The near-cap burst over real HTTP against real server processes (the shipped spend-limit and accounting
 * filters, the production filter placement): one SQLite server, and two replicas on one Redis.
 */

const KEY = 'reserve-http-key';
const MODEL = 'openai/gpt-4o'; // bundled price table: $2.50 / M prompt, $10 / M completion tokens
const PROMPT = 'The quarterly report lists revenue by region and the notes explain each change. '.repeat(65);
const redisUrl = inject('redisUrl');

async function post(server: ServerProcess, route: string, body: unknown) {
  const response = await fetch(`${server.url}${route}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const userOf = (id: string) => ({ id, email: `${id}@example.com`, name: id, role: 'user' });

/** An outlet whose reply used `prompt` and `completion` tokens (priced by the bundled table). */
function outlet(userId: string, id: string, prompt: number, completion: number) {
  return {
    user: userOf(userId),
    body: {
      model: MODEL,
      chat_id: 'c1',
      id,
      messages: [
        { id: `${id}-q`, role: 'user', content: PROMPT },
        {
          id,
          role: 'assistant',
          content: `reply ${id}`,
          usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
        },
      ],
    },
  };
}

/**
 * The user spent $0.07 of a $0.10 cap; 32 inlets of ~$0.0073 each arrive at once over the servers; each
 * admitted one gets its reply ($0.0075) on another server. Returns the statuses and the month's spend.
 */
async function burst(servers: ServerProcess[], userId: string) {
  const seeded = await post(servers[0]!, '/accounting/filter/outlet', outlet(userId, `${userId}-seed`, 28_000, 0));
  expect(seeded.status).toBe(200);
  const ids = Array.from({ length: 32 }, (_, index) => `${userId}-${index}`);
  const answers = await Promise.all(
    ids.map((id, index) =>
      post(servers[index % servers.length]!, '/spend-limit/filter/inlet', {
        user: userOf(userId),
        body: {
          model: MODEL,
          max_tokens: 500,
          messages: [{ role: 'user', content: PROMPT }],
          metadata: { chat_id: 'c1', message_id: id },
        },
      }),
    ),
  );
  const admitted = ids.filter((_, index) => answers[index]!.status === 200);
  await Promise.all(
    admitted.map((id, index) =>
      post(servers[(index + 1) % servers.length]!, '/accounting/filter/outlet', outlet(userId, id, 1000, 500)),
    ),
  );
  const usage = await fetch(`${servers[0]!.url}/usage?user=${userId}&limit=1`, {
    headers: { Authorization: `Bearer ${KEY}` },
  });
  const totals = ((await usage.json()) as { totals: { cost: string } }).totals;
  return { answers, admitted: admitted.length, spent: Number(totals.cost) };
}

function expectBounded(result: Awaited<ReturnType<typeof burst>>) {
  // $0.03 of room, $0.0073 estimated per request (918 prompt tokens + max_tokens 500): 4 fit.
  expect(result.admitted).toBe(4);
  for (const answer of result.answers.filter((each) => each.status !== 200)) {
    expect(answer.status).toBe(429);
    expect(answer.body.detail).toMatch(/^Your monthly budget of \$0\.10 has \$0\.00\d\d left, less than this request/);
  }
  expect(result.spent / 0.1).toBeLessThanOrEqual(1.05);
}

describe('the near-cap burst over HTTP', () => {
  let root: string;
  const servers: ServerProcess[] = [];
  const prefix = `eunoe-test-reserve-http-${randomBytes(4).toString('hex')}:`;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-reserve-http-'));
    const filters = path.join(root, 'filters');
    mkdirSync(filters);
    const valves = path.join(root, 'valves');
    mkdirSync(valves);
    writeFileSync(path.join(valves, 'spend-limit.json'), JSON.stringify({ monthly_limit_usd: 0.1 }));
    const env = (name: string, extra: Record<string, string> = {}) => ({
      PIPELINES_API_KEY: KEY,
      // The shipped filters, in the server's thread as deployed (filter workers are not the subject here).
      SHIPPED_FILTERS: 'spend-limit,accounting',
      FILTERS_DIR: filters,
      VALVES_DIR: valves,
      DATA_DIR: path.join(root, name),
      ...extra,
    });
    const starting = [startServerProcess(env('sqlite'))];
    if (redisUrl)
      starting.push(
        startServerProcess(env('a', { REDIS_URL: redisUrl, REDIS_PREFIX: prefix })),
        startServerProcess(env('b', { REDIS_URL: redisUrl, REDIS_PREFIX: prefix })),
      );
    servers.push(...(await Promise.all(starting)));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    if (redisUrl) await deleteRedisPrefix(redisUrl, prefix);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('one SQLite server: 4 of 32 pass, the others get a JSON 429, the month ends within 105 % of the cap', async () => {
    expectBounded(await burst([servers[0]!], 'sqlite-user'));
  });

  it.runIf(redisUrl)('two replicas on one Redis: 4 of 32 pass between them, the month ends within 105 %', async () => {
    expectBounded(await burst(servers.slice(1), 'redis-user'));
  });
});
