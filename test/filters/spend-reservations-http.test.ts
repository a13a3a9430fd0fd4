import { describe, expect, inject, it } from 'vitest';
import { capServersForTests } from '../caps/helpers/cap-servers-for-tests.js';
import { type BurstModel, nearCapBurst } from '../caps/helpers/near-cap-burst.js';
import type { ServerProcess } from '../helpers/server-process.js';

/**
 * The near-cap burst over real HTTP against real server processes (the shipped spend-limit and accounting
 * filters, the production filter placement, each request through both filters' inlets as Open WebUI calls them): one
 * SQLite server, and two replicas on one Redis.
 */

const redisUrl = inject('redisUrl');
const MODEL: BurstModel = { model: 'openai/gpt-4o', outletModel: 'openai/gpt-4o' }; // $2.50 / $10 per M tokens

/**
 * The user spent $0.07 of a $0.10 cap; 32 requests of ~$0.0073 each arrive at once over the servers; each
 * admitted one gets its reply ($0.0075) on another server. Returns the answers and the month's spend.
 */
const burst = (servers: ServerProcess[], userId: string) => nearCapBurst(servers, userId, 32, MODEL);

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
  const servers = capServersForTests('reserve-http', redisUrl);

  it('one SQLite server: 4 of 32 pass, the others get a JSON 429, the month ends within 105 % of the cap', async () => {
    expectBounded(await burst([servers[0]!], 'sqlite-user'));
  });

  it.runIf(redisUrl)('two replicas on one Redis: 4 of 32 pass between them, the month ends within 105 %', async () => {
    expectBounded(await burst(servers.slice(1), 'redis-user'));
  });
});
