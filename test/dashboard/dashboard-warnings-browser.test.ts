import type { Server } from 'node:http';
import request from 'supertest';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumForTests } from '../helpers/chromium.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { listenOnLoopback, type LoopbackHttp } from '../helpers/loopback-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { SEED_ENV, seedThroughOutlets, type SeedReply } from './helpers/seed-through-outlets.js';

const DAY = 86_400_000;
const DASHBOARD_KEY = 'dashboard-read-only-key';

/** A runtime's app on a loopback port, for the browser. */
async function serve(runtime: TestRuntime): Promise<{ server: Server; base: string }> {
  const server = runtime.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

/**
 * What the admin must not miss, in a real headless Chromium against real servers: replies recorded without a price
 * (and what they may have cost), a price table that is old or whose last refresh failed, and every column of the
 * Spend view's tables at phone, tablet and desktop widths.
 */
describe('dashboard warnings in a real browser', () => {
  let runtime: TestRuntime;
  let failing: TestRuntime;
  let openRouter: LoopbackHttp;
  let base: string;
  let failingBase: string;
  const servers: Server[] = [];
  const browser = chromiumForTests();
  const consoleErrors: string[] = [];
  // This month's replies (the page's default range), from 00:01 UTC today. acme/house-model-2026-preview is in no
  // price table: two of its replies came with the provider's cost ($0.0123 each), ten without (unpriced).
  const start = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:01:00Z`);
  const replies: SeedReply[] = [
    ...Array.from({ length: 2 }, (_, n) => ({ cost: '0.0123', n })),
    ...Array.from({ length: 10 }, (_, n) => ({ cost: undefined, n: n + 2 })),
  ].map(({ cost, n }) => ({
    id: `house-${n}`,
    time: start + n * 1000,
    user: 'ann',
    model: 'acme/house-model-2026-preview',
    prompt: 1000,
    completion: 200,
    ...(cost ? { cost } : {}),
  }));
  replies.push(
    ...Array.from({ length: 3 }, (_, n) => ({
      id: `new-${n}`,
      time: start + 20_000 + n * 1000,
      user: 'bob-with-a-rather-long-address',
      model: 'acme/brand-new-model',
      prompt: 500,
      completion: 50,
    })),
    {
      id: 'priced',
      time: start + 30_000,
      user: 'cat',
      model: 'anthropic/claude-3.5-sonnet-20241022',
      prompt: 123_456,
      completion: 12_345,
      cached: 100_000,
      cost: '0.5',
    },
  );

  beforeAll(async () => {
    runtime = await createTestRuntime({
      filters: ['accounting.ts'],
      env: { ...SEED_ENV, DASHBOARD_API_KEY: DASHBOARD_KEY },
    });
    await seedThroughOutlets(runtime.app, runtime.auth, replies);
    // A server whose price refresh fails: OpenRouter's stand-in answers 503 to every request.
    openRouter = await listenOnLoopback((_request, response) => {
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end('{"error":{"message":"Service Unavailable"}}');
    });
    failing = await createTestRuntime({
      filters: ['accounting.ts'],
      env: { PRICING_FETCH: 'true', PRICING_URL: `${openRouter.origin}/api/v1/models` },
    });
    for (const [target, set] of [
      [runtime, (url: string) => (base = url)],
      [failing, (url: string) => (failingBase = url)],
    ] as const) {
      const served = await serve(target);
      servers.push(served.server);
      set(served.base);
    }
    await browser.launch();
  }, 120_000);
  afterAll(async () => {
    await browser.close();
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    await runtime?.dispose();
    await failing?.dispose();
    await openRouter?.close();
  });

  async function openPage(origin: string, width = 1280): Promise<Page> {
    const page = await browser.newPage();
    await page.setViewportSize({ width, height: 900 });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    await page.goto(`${origin}/dashboard#key=${runtime.apiKey}`);
    await page.waitForSelector('#spend-chart svg');
    await settled(page);
    return page;
  }
  const settled = (page: Page) => page.locator('body[data-loading="false"]').waitFor();
  const rows = (page: Page, selector: string) =>
    page.$$eval(`${selector} tbody tr`, (trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent)));
  const card = (page: Page, label: string) =>
    page.$$eval(
      '.cards div',
      (cards, wanted) =>
        cards
          .filter((item) => item.querySelector('dt')?.textContent === wanted)
          .map((item) => ({
            value: item.querySelector('dd')?.textContent ?? '',
            warn: item.classList.contains('warn'),
          })),
      label,
    );

  it('GET /usage/unpriced: unpriced replies per model, their tokens and an estimate from the priced ones', async () => {
    const answer = (await request(runtime.app).get('/usage/unpriced').set(runtime.auth).expect(200)).body;
    // $0.0246 for 2 × 1,200 tokens is $0.00001025 a token; 10 unpriced replies of 1,200 tokens: $0.123.
    expect(answer.models).toEqual([
      {
        model: 'acme/house-model-2026-preview',
        records: 10,
        promptTokens: 10_000,
        completionTokens: 2_000,
        cachedTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        estimate: '0.123',
        basis: { records: 2, tokens: 2_400, cost: '0.0246' },
      },
      {
        model: 'acme/brand-new-model',
        records: 3,
        promptTokens: 1_500,
        completionTokens: 150,
        cachedTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        estimate: null,
        basis: null,
      },
    ]);
    expect(answer.totals).toMatchObject({ records: 13, estimate: '0.123', modelsWithoutEstimate: 1 });
    // The read-only key may read it; a bad range is a 400 that says what is wrong.
    await request(runtime.app)
      .get('/v1/usage/unpriced?days=7')
      .set({ Authorization: `Bearer ${DASHBOARD_KEY}` })
      .expect(200);
    const bad = await request(runtime.app).get('/usage/unpriced?from=2026-13-01').set(runtime.auth).expect(400);
    expect(bad.body.detail).toMatch(/not a day/);
    const unknown = await request(runtime.app).get('/usage/unpriced?group_by=model').set(runtime.auth).expect(400);
    expect(unknown.body.detail).toMatch(/group_by/);
  });

  it('Spend warns about unpriced replies: how many, their tokens, an estimate where the model has priced replies', async () => {
    const page = await openPage(base);
    expect(await page.isVisible('#unpriced')).toBe(true);
    expect(await page.textContent('#unpriced-summary')).toContain(
      '13 replies of 2 models (11,500 tokens in, 2,150 out) had no price, so their cost is not in the total above.',
    );
    expect(await page.textContent('#unpriced-summary')).toContain('Estimated at $0.123');
    expect(await rows(page, '#unpriced-table')).toEqual([
      ['acme/house-model-2026-preview', '10', '10,000', '2,000', '≈ $0.123', '2 priced replies, $0.0246'],
      ['acme/brand-new-model', '3', '1,500', '150', 'no estimate', 'no priced reply in range'],
    ]);
    expect(await page.getAttribute('#unpriced-table tbody tr:first-child td[data-exact]', 'data-exact')).toBe('0.123');
    expect(await card(page, 'Unpriced replies')).toEqual([{ value: '13', warn: true }]);
    // The model's row no longer shows $0.0246 alone: its unpriced replies are counted beside it.
    const models = await rows(page, '#top-models');
    expect(models.find((row) => row[0] === 'acme/house-model-2026-preview')).toEqual([
      'acme/house-model-2026-preview',
      '12',
      '12,000',
      '2,400',
      '0',
      '$0.0246',
      '10',
    ]);
    expect(models.find((row) => row[0]?.startsWith('anthropic/'))?.at(-1)).toBe('—');
    expect((await rows(page, '#top-users')).find((row) => row[0] === 'ann')?.at(-1)).toBe('10');

    // A range without unpriced replies shows no warning.
    await page.selectOption('#range', 'custom');
    await page.fill('#from', '2020-01-01');
    await page.fill('#to', '2020-01-03');
    await page.click('#apply-range');
    await settled(page);
    expect(await page.isHidden('#unpriced')).toBe(true);
    expect(await card(page, 'Unpriced replies')).toEqual([{ value: '0', warn: false }]);
    expect(consoleErrors).toEqual([]);
    await page.close();
  }, 120_000);

  it('every column of the Spend tables is in view at 800 and 1280 px, and reachable by scrolling at 390 px', async () => {
    for (const width of [1280, 800, 390]) {
      const page = await openPage(base, width);
      // The page itself never scrolls sideways: a wide table scrolls inside its own frame.
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      for (const table of ['top-users', 'top-models', 'unpriced-table']) {
        const frame = page.locator(`.table-wrap:has(> #${table})`);
        // Which headers are entirely inside the frame and the window now.
        const inView = () =>
          frame.evaluate((wrap) => {
            const box = wrap.getBoundingClientRect();
            const right = Math.min(box.right, (globalThis as unknown as { innerWidth: number }).innerWidth);
            return [...wrap.querySelectorAll('thead th')]
              .filter((th) => {
                const cell = th.getBoundingClientRect();
                return cell.width > 0 && cell.left >= box.left - 0.5 && cell.right <= right + 0.5;
              })
              .map((th) => th.textContent);
          });
        const headers = await page.$$eval(`#${table} thead th`, (ths) => ths.map((th) => th.textContent));
        expect(headers.length).toBeGreaterThanOrEqual(6);
        if (width >= 800) {
          expect({ width, table, inView: await inView() }).toEqual({ width, table, inView: headers });
          expect(await frame.getAttribute('data-more')).toBeNull();
          continue;
        }
        // At phone width: the frame says more columns are to the right, and the arrow keys bring each into view.
        expect(await frame.getAttribute('role')).toBe('region');
        expect(await frame.getAttribute('tabindex')).toBe('0');
        expect(await frame.getAttribute('data-more')).toBe('right');
        const hint = page.locator(`.table-wrap:has(> #${table}) + .scroll-hint`);
        expect(await hint.isVisible()).toBe(true);
        expect(await hint.textContent()).toContain('More columns to the right');
        const seen = new Set(await inView());
        expect(seen.has(headers[0]!)).toBe(true);
        expect(seen.has(headers.at(-1)!)).toBe(false);
        await frame.focus();
        for (let press = 0; press < 40 && seen.size < headers.length; press++) {
          await page.keyboard.press('ArrowRight');
          for (const header of await inView()) seen.add(header);
        }
        expect({ table, seen: headers.filter((header) => seen.has(header)) }).toEqual({ table, seen: headers });
        // The row's name stays in view at the far right, and the hint now points left.
        expect((await inView())[0]).toBe(headers[0]);
        await waitFor(() => frame.getAttribute('data-more'), { until: (more) => more === 'left' });
      }
      await page.close();
    }
    expect(consoleErrors).toEqual([]);
  }, 120_000);

  it('an old price table is flagged on Spend and Status; refreshing off says so', async () => {
    const status = (await request(runtime.app).get('/status').set(runtime.auth).expect(200)).body.pricing;
    // The bundled snapshot is OpenRouter's table of 2025-12-02: far older than 30 days.
    expect(status).toMatchObject({ source: 'snapshot', fetchEnabled: false, staleAfterDays: 30, stale: true });
    expect(status.ageSeconds).toBeGreaterThan((30 * DAY) / 1000);
    expect(status).toMatchObject({ lastRefresh: null, lastSuccessAt: null });
    const page = await openPage(base);
    expect(await page.isVisible('#pricing-notice')).toBe(true);
    const notice = await page.textContent('#pricing-notice');
    expect(notice).toContain('prices of Dec 2, 2025), older than 30 days');
    expect(notice).toContain('Refreshing is off (PRICING_FETCH=false)');
    await page.click('#tabs button[data-view="status"]');
    await settled(page);
    const age = await card(page, 'Price table age');
    expect(age).toHaveLength(1);
    expect(age[0]!.value).toMatch(/^\d+ d · older than 30 days$/);
    expect(age[0]!.warn).toBe(true);
    expect(await card(page, 'Last price refresh')).toEqual([{ value: 'off (PRICING_FETCH=false)', warn: false }]);
    await page.close();
  }, 120_000);

  it('a failed price refresh shows as failed, with its reason and time, on Status and Spend', async () => {
    const pricing = await waitFor(
      async () => (await request(failing.app).get('/status').set(failing.auth).expect(200)).body.pricing,
      { until: (value) => value.lastRefresh !== null, timeoutMs: 30_000 },
    );
    expect(pricing.lastRefresh).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/HTTP 503/) });
    expect(Date.parse(pricing.lastRefresh.at)).toBe(Date.parse(pricing.lastRefreshAt));
    expect(pricing).toMatchObject({ lastSuccessAt: null, source: 'snapshot', stale: true });
    const when = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(
      new Date(pricing.lastRefresh.at),
    );

    const page = await openPage(failingBase);
    expect(await page.textContent('#pricing-notice')).toContain(
      `The last price refresh failed (${when} UTC): ${pricing.lastRefresh.error}.`,
    );
    expect(await page.isHidden('#unpriced')).toBe(true); // nothing recorded on this server
    await page.click('#tabs button[data-view="status"]');
    await settled(page);
    expect(await card(page, 'Last price refresh')).toEqual([{ value: `Failed · ${when} UTC`, warn: true }]);
    expect(await card(page, 'Last refresh error')).toEqual([{ value: pricing.lastRefresh.error, warn: true }]);
    expect(await card(page, 'Last successful refresh')).toEqual([{ value: 'none by this server', warn: false }]);
    expect(consoleErrors).toEqual([]);
    await page.close();
  }, 120_000);
});
