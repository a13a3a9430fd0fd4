import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { expectJsonError } from '../server/helpers/http.js';

/**
 * docs/accounting.md, "What counts toward a scope": a reply recorded after its hold expired still counts toward its
 * group, because the outlet writes the group on the record. Real runtime (SQLite file), the shipped spend-limit and
 * accounting filters over HTTP. A request (about 330 prompt tokens + max_tokens 500 of openai/gpt-4o) holds about $0.006;
 * each reply (1,000 + 500 tokens) costs $0.0075 (the bundled table: $2.50 / $10 per M).
 */
describe("a late reply counts toward its group's budget", () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['spend-limit.ts', 'accounting.ts'] });
    await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({ reservation_timeout_s: 1, group_limits: { Solo: { daily_usd: 0.01 } } })
      .expect(200);
  });
  afterAll(async () => runtime.dispose());

  const groups = [{ id: 'grp-solo', name: 'Solo' }];
  const user = (id: string) => ({ id, email: `${id}@example.com`, name: id, role: 'user', groups });
  const inlet = (userId: string, id: string) =>
    request(runtime.app)
      .post('/spend-limit/filter/inlet')
      .set(runtime.auth)
      .send({
        user: user(userId),
        body: {
          model: 'openai/gpt-4o',
          max_tokens: 500,
          messages: [{ role: 'user', content: 'Summarise the quarterly report by region. '.repeat(40) }],
          metadata: { chat_id: `chat-${id}`, message_id: id },
        },
      });
  const outlet = (userId: string, id: string) =>
    request(runtime.app)
      .post('/accounting/filter/outlet')
      .set(runtime.auth)
      .send({
        user: user(userId),
        body: {
          model: 'openai/gpt-4o',
          chat_id: `chat-${id}`,
          id,
          messages: [
            { role: 'user', content: 'Summarise.' },
            {
              id,
              role: 'assistant',
              content: 'The summary.',
              usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 },
            },
          ],
        },
      });

  it('held, expired, recorded late: the group is used up by both replies', async () => {
    expect((await inlet('ann', 'a1')).status).toBe(200);
    // ann's hold fills most of the $0.01: bob's request does not fit while it is held.
    expectJsonError(await inlet('bob', 'b0'), 429, /Your group 'Solo' daily budget of \$0\.01 has/);
    // Past reservation_timeout_s the hold no longer counts: bob is admitted.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await inlet('bob', 'b1')).status).toBe(200);
    // Both replies are recorded (ann's after her hold expired): $0.015 toward Solo.
    expect((await outlet('ann', 'a1')).status).toBe(200);
    expect((await outlet('bob', 'b1')).status).toBe(200);
    const records = (await request(runtime.app).get('/usage?limit=10').set(runtime.auth).expect(200)).body.records;
    expect(records.map((record: { scopes?: string[] }) => record.scopes)).toEqual([['g:Solo'], ['g:Solo']]);
    expectJsonError(await inlet('cy', 'c1'), 429, /Your group 'Solo' daily budget of \$0\.01 is used up/);
  });
});
