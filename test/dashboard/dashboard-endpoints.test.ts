import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { SEED_ENV, seedThroughOutlets } from './helpers/seed-through-outlets.js';

const nov = (day: number, hour = 12, minute = 0, second = 0, ms = 0) =>
  Date.UTC(2025, 10, day, hour, minute, second, ms);
const DASHBOARD_KEY = 'dashboard-read-only-key';

/**
 * The dashboard's JSON endpoints on a real runtime (SQLite state, shipped filters loaded by the
 * real loader), with the ledger seeded through the accounting filter's outlet over HTTP.
 */
describe('dashboard endpoints', () => {
  let runtime: TestRuntime;

  beforeAll(async () => {
    runtime = await createTestRuntime({
      filters: ['accounting.ts', 'spend-limit.ts', 'context.ts'],
      sources: { 'broken.ts': 'export default {;\n' },
      env: { DASHBOARD_API_KEY: DASHBOARD_KEY, ...SEED_ENV },
    });
    // Costs chosen so a float sum drifts (0.1 + 0.2 = 0.30000000000000004); the last one is far below a cent.
    await seedThroughOutlets(runtime.app, runtime.auth, [
      {
        id: 'r1',
        time: nov(4, 23, 59, 59, 999),
        user: 'ann',
        model: 'openai/gpt-4o',
        prompt: 100,
        completion: 10,
        cost: '0.1',
      },
      {
        id: 'r2',
        time: nov(5, 0),
        user: 'ann',
        model: 'openai/gpt-4o',
        prompt: 200,
        completion: 20,
        cached: 50,
        cost: '0.2',
      },
      {
        id: 'r3',
        time: nov(5, 9),
        user: 'bob',
        model: 'anthropic/claude-3.5-sonnet',
        prompt: 300,
        completion: 30,
        cost: '0.000000000000000007',
      },
      {
        id: 'r4',
        time: nov(30, 23, 59, 59, 999),
        user: 'bob',
        model: 'openai/gpt-4o',
        prompt: 1,
        completion: 1,
        cost: '1.5',
      },
      {
        id: 'r5',
        time: Date.UTC(2025, 11, 1),
        user: 'bob',
        model: 'openai/gpt-4o',
        prompt: 1,
        completion: 1,
        cost: '9',
      },
    ]);
  });
  afterAll(async () => runtime.dispose());

  const get = (url: string, key?: string) =>
    request(runtime.app)
      .get(url)
      .set(key ? { Authorization: `Bearer ${key}` } : runtime.auth);

  it('a month: zero-filled days with exact decimal totals, UTC day boundaries, groups by cost', async () => {
    const response = await get('/usage/daily?month=2025-11&group_by=model').expect(200);
    const body = response.body;
    expect(body).toMatchObject({ from: '2025-11-01', to: '2025-12-01', currency: 'USD', groupBy: 'model' });
    expect(body.series).toHaveLength(30);
    expect(body.totals).toMatchObject({
      records: 4,
      cost: '1.800000000000000007',
      promptTokens: 601,
      cachedTokens: 50,
    });
    const byDay = Object.fromEntries(body.series.map((day: { day: string; cost: string }) => [day.day, day.cost]));
    expect(byDay['2025-11-04']).toBe('0.1'); // 23:59:59.999 is still the 4th
    expect(byDay['2025-11-05']).toBe('0.200000000000000007'); // 00:00:00.000 is the 5th
    expect(byDay['2025-11-30']).toBe('1.5');
    expect(byDay['2025-11-01']).toBe('0');
    expect(body.series.find((day: { day: string }) => day.day === '2025-11-05').groups).toEqual([
      expect.objectContaining({ key: 'openai/gpt-4o', cost: '0.2', records: 1, cachedTokens: 50 }),
      expect.objectContaining({ key: 'anthropic/claude-3.5-sonnet', cost: '0.000000000000000007', records: 1 }),
    ]);
    expect(body.groups.map((group: { key: string; cost: string }) => [group.key, group.cost])).toEqual([
      ['openai/gpt-4o', '1.8'],
      ['anthropic/claude-3.5-sonnet', '0.000000000000000007'],
    ]);
  });

  it('group_by=user, explicit from/to (to exclusive), the same answer under /v1', async () => {
    const response = await get('/v1/usage/daily?from=2025-11-05&to=2025-12-01&group_by=user').expect(200);
    expect(response.body.series.map((day: { day: string }) => day.day).slice(0, 2)).toEqual([
      '2025-11-05',
      '2025-11-06',
    ]);
    expect(response.body.series.at(-1).day).toBe('2025-11-30');
    expect(response.body.groups.map((group: { key: string; cost: string }) => [group.key, group.cost])).toEqual([
      ['bob', '1.500000000000000007'],
      ['ann', '0.2'],
    ]);
    // ISO instants at 00:00Z are accepted like days.
    const iso = await get('/usage/daily?from=2025-12-01T00:00:00.000Z&to=2025-12-02').expect(200);
    expect(iso.body.totals).toMatchObject({ records: 1, cost: '9' });
  });

  it('empty ranges: a range with no records is zero-filled, an empty range has no days', async () => {
    const quiet = await get('/usage/daily?from=2025-10-01&to=2025-10-04&group_by=user').expect(200);
    expect(
      quiet.body.series.map((day: { day: string; cost: string; records: number }) => [day.day, day.cost, day.records]),
    ).toEqual([
      ['2025-10-01', '0', 0],
      ['2025-10-02', '0', 0],
      ['2025-10-03', '0', 0],
    ]);
    expect(quiet.body.groups).toEqual([]);
    expect(quiet.body.totals).toMatchObject({ records: 0, cost: '0' });
    const none = await get('/usage/daily?from=2025-11-05&to=2025-11-05').expect(200);
    expect(none.body).toMatchObject({ series: [], totals: { records: 0, cost: '0' } });
  });

  it.each([
    ['/usage/daily?from=2025-11-31', 'from: not a day'],
    ['/usage/daily?from=2025-11-05T10:00:00Z', 'not a UTC day boundary'],
    ['/usage/daily?from=2025-11-06&to=2025-11-05', 'from is after to'],
    ['/usage/daily?group_by=day', 'group_by'],
    ['/usage/daily?days=0', 'days'],
    ['/usage/daily?from=2024-01-01&to=2026-01-01', 'more than 400 days'],
    ['/usage/daily?month=2026-13', 'month'],
    ['/usage/context?from=nope', 'from: not a day'],
  ])('%s is a 400 that says what is wrong', async (url, message) => {
    const response = await get(url).expect(400);
    expect(response.body.detail).toContain(message);
  });

  it('context statistics: numbers per day from real inlets, no chat text stored', async () => {
    await request(runtime.app).post('/context/valves/update').set(runtime.auth).send({ max_tokens: 300 }).expect(200);
    const secret = 'the launch code is swordfish';
    const messages = Array.from({ length: 40 }, (_, index) => ({
      role: index % 2 ? 'assistant' : 'user',
      content: `${index === 3 ? secret : 'filler'} message number ${index} with enough words to cost some tokens`,
    }));
    messages.push({ role: 'user', content: 'what now?' });
    await request(runtime.app)
      .post('/context/filter/inlet')
      .set(runtime.auth)
      .send({
        body: { model: 'openai/gpt-4o', messages, metadata: { chat_id: 'ctx-1' } },
        user: { id: 'ann', role: 'user' },
      })
      .expect(200);
    const response = await get('/usage/context?days=1').expect(200);
    const { totals, days } = response.body;
    expect(days).toHaveLength(1);
    expect(totals.inlets).toBe(1);
    expect(totals.tokensBefore).toBeGreaterThan(totals.tokensAfter);
    expect(totals.tokensAfter).toBeLessThanOrEqual(300);
    expect(totals.kept + totals.dropped + totals.summarized).toBeGreaterThanOrEqual(41);
    expect(totals.dropped).toBeGreaterThan(0);
    expect(totals.savedShare).toBeCloseTo(1 - totals.tokensAfter / totals.tokensBefore, 3);
    const keys = await runtime.store.keys('stats:context:');
    expect(keys.length).toBeGreaterThan(0);
    for (const value of await runtime.store.getMany(keys)) expect(typeof value).toBe('number');
    const empty = await get('/usage/context?from=2020-01-01&to=2020-01-03').expect(200);
    expect(empty.body.totals).toMatchObject({ inlets: 0, tokensBefore: 0, savedShare: 0, cachedShare: 0 });
  });

  it("context statistics carry the ledger's prompt tokens and the share read from the provider's prompt cache", async () => {
    // The seeded replies: 100 prompt tokens on Nov 4; 200 (50 cached) + 300 on Nov 5.
    const response = await get('/usage/context?from=2025-11-04&to=2025-11-06').expect(200);
    const { totals, days } = response.body;
    expect(days.map((day: Record<string, unknown>) => [day.day, day.promptTokens, day.cachedTokens])).toEqual([
      ['2025-11-04', 100, 0],
      ['2025-11-05', 500, 50],
    ]);
    expect(totals).toMatchObject({ promptTokens: 600, cachedTokens: 50, cachedShare: 0.083 });
  });

  it('caps: spent, cap, percent and reset of each capped user; who is blocked now', async () => {
    const caps0 = await get('/usage/caps').expect(200);
    expect(caps0.body).toMatchObject({ filter: 'spend-limit', users: [], blocked: [] }); // no caps configured yet
    await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({ monthly_limit_usd: 10, user_limits: { cat: { daily_usd: 0.5 } } })
      .expect(200);
    const now = Date.now();
    await seedThroughOutlets(runtime.app, runtime.auth, [
      { id: 'c1', time: now, user: 'cat', model: 'openai/gpt-4o', prompt: 1, completion: 1, cost: '0.25' },
      { id: 'c2', time: now, user: 'cat', model: 'openai/gpt-4o', prompt: 1, completion: 1, cost: '0.25' },
      { id: 'd1', time: now, user: 'dan', model: 'openai/gpt-4o', prompt: 1, completion: 1, cost: '2.5' },
      { id: 'e1', time: now, user: 'eve', role: 'admin', model: 'openai/gpt-4o', prompt: 1, completion: 1, cost: '50' },
    ]);
    const response = await get('/usage/caps').expect(200);
    const users = Object.fromEntries(response.body.users.map((user: { user: string }) => [user.user, user]));
    expect(Object.keys(users)).toEqual(['cat', 'dan']); // eve is an exempt admin
    const day = new Date(now);
    const tomorrow = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + 1)).toISOString();
    const nextMonth = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + 1, 1)).toISOString();
    // The pace of a monthly cap depends on today's date: the test below fixes the clock to check it.
    const pace = expect.objectContaining({ projected: expect.any(String), passes: expect.any(Boolean) });
    expect(users.cat.caps).toEqual([
      { period: 'daily', spent: '0.5', cap: '0.5', percent: 100, resetsAt: tomorrow, reached: true, pace: null },
      { period: 'monthly', spent: '0.5', cap: '10', percent: 5, resetsAt: nextMonth, reached: false, pace },
    ]);
    expect(users.dan).toMatchObject({ role: 'user', blocked: false });
    expect(users.dan.caps).toEqual([
      { period: 'monthly', spent: '2.5', cap: '10', percent: 25, resetsAt: nextMonth, reached: false, pace },
    ]);
    expect(response.body.blocked).toEqual(['cat']);
  });

  it('caps set by email: the spend of the user id whose records carry that email, as the filter enforces it', async () => {
    await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({
        monthly_limit_usd: 0,
        user_limits: { 'fay@example.com': { daily_usd: 1 }, 'gus@example.com': { monthly_usd: 5 } },
      })
      .expect(200);
    const now = Date.now();
    // The outlets send user {id: 'fay', email: 'fay@example.com'}: the ledger keeps the id, and the email beside it.
    await seedThroughOutlets(runtime.app, runtime.auth, [
      { id: 'f1', time: now, user: 'fay', model: 'openai/gpt-4o', prompt: 1, completion: 1, cost: '0.75' },
      { id: 'f2', time: now, user: 'fay', model: 'openai/gpt-4o', prompt: 1, completion: 1, cost: '0.5' },
    ]);
    const response = await get('/usage/caps').expect(200);
    const users = Object.fromEntries(response.body.users.map((user: { user: string }) => [user.user, user]));
    // The email key resolved to fay is not listed again; gus has no record, so his key stands for him.
    expect(Object.keys(users)).toEqual(['fay', 'gus@example.com']);
    expect(users.fay).toMatchObject({ email: 'fay@example.com', role: 'user', blocked: true });
    expect(users.fay.caps).toEqual([
      expect.objectContaining({ period: 'daily', spent: '1.25', cap: '1', percent: 125 }),
    ]);
    expect(users['gus@example.com']).toMatchObject({ email: null, role: null, blocked: false });
    expect(users['gus@example.com'].caps).toEqual([
      expect.objectContaining({ period: 'monthly', spent: '0', cap: '5', reached: false }),
    ]);
    expect(response.body.blocked).toEqual(['fay']);
    // The spend-limit filter, which sees the email, blocks the same user.
    const blocked = await request(runtime.app)
      .post('/spend-limit/filter/inlet')
      .set(runtime.auth)
      .send({
        body: { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Hi' }] },
        user: { id: 'fay', email: 'fay@example.com', role: 'user' },
      })
      .expect(429);
    expect(blocked.body.detail).toBe('Your daily budget of $1.00 is used up; it resets at 00:00 UTC.');
  });

  it("caps: the month's pace of each monthly cap and who passes it when (docs/accounting.md, example 1)", async () => {
    await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({ monthly_limit_usd: 0, user_limits: { hal: { monthly_usd: 30 }, ida: { monthly_usd: 30 } } })
      .expect(200);
    // hal: $2 on each of 13–19 November 2026, $1 on the 20th by 06:00; ida: $15 on the 1st, nothing since.
    const replies = [13, 14, 15, 16, 17, 18, 19].map((day) => ({
      id: `h${day}`,
      time: Date.UTC(2026, 10, day, 12),
      user: 'hal',
      model: 'openai/gpt-4o',
      prompt: 1,
      completion: 1,
      cost: '2',
    }));
    replies.push(
      {
        id: 'h20',
        time: Date.UTC(2026, 10, 20, 6),
        user: 'hal',
        model: 'openai/gpt-4o',
        prompt: 1,
        completion: 1,
        cost: '1',
      },
      {
        id: 'i1',
        time: Date.UTC(2026, 10, 1, 9),
        user: 'ida',
        model: 'openai/gpt-4o',
        prompt: 1,
        completion: 1,
        cost: '15',
      },
    );
    await seedThroughOutlets(runtime.app, runtime.auth, replies);
    vi.useFakeTimers({ toFake: ['Date'] });
    let response: request.Response;
    try {
      vi.setSystemTime(Date.UTC(2026, 10, 20, 12));
      response = await get('/usage/caps').expect(200);
    } finally {
      vi.useRealTimers();
    }
    const users = Object.fromEntries(response.body.users.map((user: { user: string }) => [user.user, user]));
    expect(users.hal.caps).toEqual([
      {
        period: 'monthly',
        spent: '15',
        cap: '30',
        percent: 50,
        resetsAt: '2026-12-01T00:00:00.000Z',
        reached: false,
        // $15 + $2 a day (the last 7 full days) × 10.5 days left; a linear month would say $23.08.
        pace: { projected: '36', dailyRate: '2', method: 'recent', passes: true, passesOn: '2026-11-28' },
      },
    ]);
    // ida spent as much, all on the 1st: her recent rate is $0, she stays at $15.
    expect(users.ida.caps[0].pace).toEqual({
      projected: '15',
      dailyRate: '0',
      method: 'recent',
      passes: false,
      passesOn: null,
    });
    expect(response.body.passing).toEqual(['hal']);
    expect(response.body.blocked).toEqual([]);
  });

  it("caps: each group's and model pattern's shared budget, its spend from the scope's counters and its pace", async () => {
    await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({
        monthly_limit_usd: 0,
        user_limits: {},
        group_limits: {
          Research: { daily_usd: 5, monthly_usd: 30, member_daily_usd: 2 },
          Support: { monthly_usd: 50 },
          Interns: { member_monthly_usd: 3 },
        },
        model_limits: { 'openai/gpt-5*': { daily_usd: 1 }, 'anthropic/*': { monthly_usd: 10, group: 'Research' } },
        group_members: { Research: ['liz', 'max'] },
      })
      .expect(200);
    // docs/accounting.md, "The month's pace", example 1 as a group's spend: Research's members liz and max spend $2 a
    // day together on 13–19 November 2026 ($1 each), liz $1 on the 20th by 06:00: $15 by noon on the 20th.
    const reply = (id: string, user: string, day: number, hour: number, cost: string, model = 'openai/gpt-4o') => ({
      id,
      time: Date.UTC(2026, 10, day, hour),
      user,
      model,
      prompt: 1,
      completion: 1,
      cost,
    });
    await seedThroughOutlets(runtime.app, runtime.auth, [
      ...[13, 14, 15, 16, 17, 18, 19].flatMap((day) => [
        reply(`gl${day}`, 'liz', day, 10, '1'),
        reply(`gm${day}`, 'max', day, 11, '1'),
      ]),
      reply('gl20', 'liz', 20, 6, '1'),
      // ned is in no group: his $1.25 on a gpt-5 model is the whole 'openai/gpt-5*' budget's spend today.
      reply('gn20', 'ned', 20, 8, '1.25', 'openai/gpt-5-mini'),
    ]);
    vi.useFakeTimers({ toFake: ['Date'] });
    let response: request.Response;
    try {
      vi.setSystemTime(Date.UTC(2026, 10, 20, 12));
      response = await get('/usage/caps').expect(200);
    } finally {
      vi.useRealTimers();
    }
    const tomorrow = '2026-11-21T00:00:00.000Z';
    const nextMonth = '2026-12-01T00:00:00.000Z';
    expect(response.body.shared).toEqual([
      {
        scope: 'g:Research',
        kind: 'group',
        group: 'Research',
        pattern: null,
        caps: [
          { period: 'daily', spent: '1', cap: '5', percent: 20, resetsAt: tomorrow, reached: false, pace: null },
          {
            period: 'monthly',
            spent: '15',
            cap: '30',
            percent: 50,
            resetsAt: nextMonth,
            reached: false,
            // $15 + $2 a day (the group's last 7 full days) × 10.5 days left, passed on the 28th.
            pace: { projected: '36', dailyRate: '2', method: 'recent', passes: true, passesOn: '2026-11-28' },
          },
        ],
        member: { daily: '2', monthly: null },
        blocked: false,
      },
      {
        // Listed with nothing spent.
        scope: 'g:Support',
        kind: 'group',
        group: 'Support',
        pattern: null,
        caps: [
          {
            period: 'monthly',
            spent: '0',
            cap: '50',
            percent: 0,
            resetsAt: nextMonth,
            reached: false,
            pace: { projected: '0', dailyRate: '0', method: 'recent', passes: false, passesOn: null },
          },
        ],
        member: null,
        blocked: false,
      },
      // Member caps only: no shared spend, the note alone.
      {
        scope: 'g:Interns',
        kind: 'group',
        group: 'Interns',
        pattern: null,
        caps: [],
        member: { daily: null, monthly: '3' },
        blocked: false,
      },
      {
        scope: 'm:openai/gpt-5*',
        kind: 'model',
        group: null,
        pattern: 'openai/gpt-5*',
        caps: [
          { period: 'daily', spent: '1.25', cap: '1', percent: 125, resetsAt: tomorrow, reached: true, pace: null },
        ],
        member: null,
        blocked: true,
      },
      {
        scope: 'g:Research|m:anthropic/*',
        kind: 'model',
        group: 'Research',
        pattern: 'anthropic/*',
        caps: [expect.objectContaining({ period: 'monthly', spent: '0', cap: '10', reached: false })],
        member: null,
        blocked: false,
      },
    ]);
    expect(response.body.sharedBlocked).toEqual(['m:openai/gpt-5*']);
    expect(response.body.sharedPassing).toEqual(['g:Research']);
    // The members' own caps: Research's $2 a day each (liz spent $1 today, max nothing).
    const users = Object.fromEntries(response.body.users.map((user: { user: string }) => [user.user, user]));
    expect(Object.keys(users)).toEqual(['liz', 'max']);
    expect(users.liz.caps).toEqual([expect.objectContaining({ period: 'daily', spent: '1', cap: '2', percent: 50 })]);
    expect(users.max.caps).toEqual([expect.objectContaining({ period: 'daily', spent: '0', cap: '2', percent: 0 })]);
  });

  it('status: filters with load status and errors, backend, pricing age, version', async () => {
    const response = await get('/status').expect(200);
    const filters = Object.fromEntries(response.body.filters.map((filter: { id: string }) => [filter.id, filter]));
    // The accounting filter is kept in the main thread (SEED_ENV); the others run where FILTER_ISOLATION puts them.
    expect(filters.accounting).toMatchObject({ status: 'loaded', error: null, isolation: 'main', priority: 100 });
    expect(filters.context.isolation).toBe(runtime.config.FILTER_ISOLATION === 'worker' ? 'worker' : 'main');
    expect(filters.broken).toMatchObject({ status: 'failed', file: 'broken.ts' });
    expect(filters.broken.error).toMatch(/./);
    expect(response.body.store).toMatchObject({ backend: 'sqlite', ok: true });
    expect(response.body.pricing).toMatchObject({ source: expect.any(String), ageSeconds: expect.any(Number) });
    expect(response.body.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('the read-only DASHBOARD_API_KEY reads usage and status but cannot change valves or filters', async () => {
    await get('/usage/daily?month=2025-11', DASHBOARD_KEY).expect(200);
    await get('/v1/usage/caps', DASHBOARD_KEY).expect(200);
    await get('/status', DASHBOARD_KEY).expect(200);
    await get('/usage?limit=1', DASHBOARD_KEY).expect(200);
    const write = await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set({ Authorization: `Bearer ${DASHBOARD_KEY}` })
      .send({ monthly_limit_usd: 0 })
      .expect(403);
    expect(write.body.detail).toMatch(/read-only/);
    await get('/spend-limit/valves', DASHBOARD_KEY).expect(403); // valves may hold secrets (summarizer keys)
    await request(runtime.app)
      .post('/pipelines/reload')
      .set({ Authorization: `Bearer ${DASHBOARD_KEY}` })
      .expect(403);
    const wrong = await get('/usage/daily', 'not-a-key').expect(401);
    expect(wrong.body.detail).toBe('Invalid API key');
    await request(runtime.app).get('/usage/daily').expect(401);
  });

  it('GET /dashboard serves the page and its files without a key, with a strict CSP; nothing else', async () => {
    const page = await request(runtime.app).get('/dashboard').expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.text).toContain('/dashboard/dashboard.js');
    expect(page.text).not.toMatch(/https?:\/\//); // no CDN
    const script = await request(runtime.app).get('/dashboard/dashboard.js').expect(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    await request(runtime.app).get('/dashboard/../package.json').expect(401);
    await request(runtime.app).get('/dashboard/secret.js').set(runtime.auth).expect(404);
  });
});
