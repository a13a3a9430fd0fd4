import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestRuntime } from '../helpers/create-test-runtime.js';
import { waitFor } from '../helpers/wait-for.js';
import { proxyMoneyRuntime, type ProxyMoneyRuntime } from './helpers/proxy-money-runtime.js';

/**
 * docs/accounting.md, "What counts toward a scope": a direct caller's reply, recorded by the openai-proxy (a loopback
 * OpenAI upstream), counts toward the caller's group; a caller sends no groups, so `group_members` names them.
 */
describe("the openai-proxy's records count toward the caller's group", () => {
  let runtime: TestRuntime;
  let setup: ProxyMoneyRuntime;
  beforeAll(async () => {
    setup = await proxyMoneyRuntime();
    ({ runtime } = setup);
    const { update } = setup;
    await update('spend-limit', {
      group_limits: { Team: { monthly_usd: 5 } },
      group_members: { Team: ['u-api-a', 'u-api-b'] },
    });
  });
  afterAll(async () => setup?.close());

  const records = async (userId: string) =>
    (await request(runtime.app).get(`/usage?user=${userId}`).set(runtime.auth).expect(200)).body.records as Array<{
      cost: string;
      scopes?: string[];
    }>;

  it("both members' replies are recorded with the group, and the group's month is the sum of their costs", async () => {
    for (const user of ['u-api-a', 'u-api-b', 'u-api-c'])
      await request(runtime.app)
        .post('/v1/chat/completions')
        .set(runtime.auth)
        .send({ model: 'openai-proxy.gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }], user })
        .expect(200);
    const a = await waitFor(() => records('u-api-a'), { until: (list) => list.length === 1 });
    const b = await waitFor(() => records('u-api-b'), { until: (list) => list.length === 1 });
    const c = await waitFor(() => records('u-api-c'), { until: (list) => list.length === 1 });
    expect(a[0]!.scopes).toEqual(['g:Team']);
    expect(b[0]!.scopes).toEqual(['g:Team']);
    expect(c[0]!.scopes).toBeUndefined(); // not a member
    const now = new Date();
    const month = [
      Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1),
      Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1),
    ];
    const team = await runtime.services.ledger!.scopeSpent!('g:Team', month[0]!, month[1]!);
    expect(Number(team)).toBeCloseTo(Number(a[0]!.cost) + Number(b[0]!.cost), 15);
  });
});
