import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import request from 'supertest';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { add, formatDecimal, parseDecimal } from '../../src/domain/pricing/decimal.js';
import { chromiumForTests } from '../helpers/chromium.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { SEED_ENV, seedThroughOutlets, type SeedReply } from './helpers/seed-through-outlets.js';

const DAY = 86_400_000;
const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);
const sum = (replies: SeedReply[]) => formatDecimal(add(...replies.map((reply) => parseDecimal(reply.cost)!)));

/**
 * The dashboard in a real headless Chromium (Debian's package, driven by playwright-core) against
 * a real server on loopback, its ledger seeded through the accounting filter's outlet over HTTP.
 */
describe('dashboard in a real browser', () => {
  let runtime: TestRuntime;
  let server: Server;
  let base: string;
  const browser = chromiumForTests();
  const consoleErrors: string[] = [];
  // Replies today, 2 days ago and 20 days ago (UTC), so 7 days, 30 days and this month differ.
  const midnight = Date.parse(`${dayOf(Date.now())}T00:00:00Z`);
  const replies: SeedReply[] = [
    {
      id: 't1',
      time: midnight + 60_000,
      user: 'ann',
      model: 'openai/gpt-4o',
      prompt: 1200,
      completion: 300,
      cached: 200,
      cost: '0.1234',
    },
    {
      id: 't2',
      time: midnight + 120_000,
      user: 'bob',
      model: 'anthropic/claude-3.5-sonnet',
      prompt: 800,
      completion: 100,
      cost: '0.2',
    },
    {
      id: 'p1',
      time: midnight - 2 * DAY + 5_000,
      user: 'ann',
      model: 'anthropic/claude-3.5-sonnet',
      prompt: 500,
      completion: 50,
      cost: '0.000000000000000007',
    },
    {
      id: 'o1',
      time: midnight - 20 * DAY + 5_000,
      user: 'cat',
      model: 'openai/gpt-4o',
      prompt: 100,
      completion: 10,
      cost: '3.5',
    },
  ];
  const within = (days: number) => replies.filter((reply) => reply.time >= midnight - (days - 1) * DAY);

  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['accounting.ts', 'spend-limit.ts', 'context.ts'], env: SEED_ENV });
    await seedThroughOutlets(runtime.app, runtime.auth, replies);
    await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({ user_limits: { ann: { daily_usd: 0.1 } } })
      .expect(200);
    await request(runtime.app).post('/context/valves/update').set(runtime.auth).send({ max_tokens: 200 }).expect(200);
    const messages = Array.from({ length: 20 }, (_, index) => ({
      role: index % 2 ? 'assistant' : 'user',
      content: `message ${index} with some words in it to make it cost tokens`,
    }));
    await request(runtime.app)
      .post('/context/filter/inlet')
      .set(runtime.auth)
      .send({
        body: { model: 'openai/gpt-4o', messages, metadata: { chat_id: 'b1' } },
        user: { id: 'ann', role: 'user' },
      })
      .expect(200);
    server = runtime.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    await browser.launch();
  }, 120_000);
  afterAll(async () => {
    await browser.close();
    await new Promise((resolve) => server?.close(resolve));
    await runtime?.dispose();
  });

  async function openPage(fragment: string): Promise<Page> {
    const page = await browser.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    await page.goto(`${base}/dashboard${fragment}`);
    return page;
  }
  const settled = (page: Page) => page.locator('body[data-loading="false"]').waitFor();
  const exact = (page: Page, selector: string) =>
    page.$$eval(selector, (cells) =>
      cells.map((cell) => [cell.closest('tr')?.querySelector('th')?.textContent, cell.getAttribute('data-exact')]),
    );
  const totalCost = (page: Page) => page.getAttribute('#spend-cards div:first-child dd', 'data-exact');

  it('signs in from the #key fragment, removes it, and shows the seeded days, users and models exactly', async () => {
    const page = await openPage(`#key=${runtime.apiKey}`);
    await page.waitForSelector('#spend-chart svg');
    await settled(page);
    expect(page.url()).toBe(`${base}/dashboard`); // the key left the address bar
    expect(
      await page.evaluate(() =>
        (globalThis as unknown as { sessionStorage: { getItem(key: string): string | null } }).sessionStorage.getItem(
          'eunoe.dashboard.key',
        ),
      ),
    ).toBe(runtime.apiKey);

    await page.selectOption('#range', '7');
    await settled(page);
    const week = within(7);
    expect(await totalCost(page)).toBe(sum(week));
    const days = await page.$$eval('#spend-chart svg g[data-day]', (groups) =>
      groups.map((group) => [
        group.getAttribute('data-day'),
        group.getAttribute('data-cost'),
        group.querySelectorAll('rect').length,
      ]),
    );
    expect(days).toHaveLength(7);
    expect(days.at(-1)).toEqual([dayOf(midnight), '0.3234', 2]); // two models stacked today
    expect(days.find(([day]) => day === dayOf(midnight - 2 * DAY))).toEqual([
      dayOf(midnight - 2 * DAY),
      '0.000000000000000007',
      1,
    ]);
    expect(await exact(page, '#top-users td[data-exact]')).toEqual([
      ['bob', '0.2'],
      ['ann', '0.123400000000000007'],
    ]);
    expect(await exact(page, '#top-models td[data-exact]')).toEqual([
      ['anthropic/claude-3.5-sonnet', '0.200000000000000007'],
      ['openai/gpt-4o', '0.1234'],
    ]);
    const annRow = await page.$$eval('#top-users tbody tr', (rows) =>
      rows.map((row) => [...row.children].map((cell) => cell.textContent)),
    );
    expect(annRow[1]).toEqual(['ann', '2', '1,700', '350', '200', '$0.1234', '—']); // en-US locale, USD; none unpriced

    // The range switch changes the numbers: 30 days brings in cat's 20-day-old reply.
    await page.selectOption('#range', '30');
    await settled(page);
    expect(await totalCost(page)).toBe(sum(within(30)));
    expect(await totalCost(page)).not.toBe(sum(week));
    expect(await page.$$eval('#spend-chart svg g[data-day]', (groups) => groups.length)).toBe(30);
    expect((await exact(page, '#top-users td[data-exact]'))[0]).toEqual(['cat', '3.5']);

    // Stacking by user colours the bars by user.
    await page.selectOption('#stack', 'user');
    const keys = await page.$$eval('#spend-chart rect[data-key]', (rects) =>
      [...new Set(rects.map((rect) => rect.getAttribute('data-key')))].sort(),
    );
    expect(keys).toEqual(['ann', 'bob', 'cat']);

    // CSV of what is shown, exact costs.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-csv')]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\r\n')[0]).toBe('day,user,replies,prompt_tokens,completion_tokens,cached_tokens,cost_usd');
    expect(csv).toContain(`${dayOf(midnight - 2 * DAY)},ann,1,500,50,0,0.000000000000000007`);
    expect(csv).toContain(`${dayOf(midnight - 20 * DAY)},cat,1,100,10,0,3.5`);

    // This month (the default) covers exactly the replies since the 1st.
    await page.selectOption('#range', 'month');
    await settled(page);
    const monthStart = Date.parse(`${dayOf(midnight).slice(0, 7)}-01T00:00:00Z`);
    expect(await totalCost(page)).toBe(sum(replies.filter((reply) => reply.time >= monthStart)));

    // Caps: ann's daily cap of $0.10 is used up today.
    await page.click('#tabs button[data-view="caps"]');
    await settled(page);
    expect(await page.textContent('#caps-blocked')).toContain('ann@example.com');
    const capRows = await page.$$eval('#caps-table tbody tr', (rows) =>
      rows.map((row) => [...row.children].map((cell) => cell.textContent)),
    );
    // A user is shown by the email on their records (the outlets send `ann@example.com`).
    expect(capRows[0]?.slice(0, 5)).toEqual(['ann@example.com', 'user', 'daily', '$0.1234', '$0.10']);
    expect(capRows[0]?.at(-1)).toBe('Blocked');
    // No group_limits or model_limits in the valves: no shared budgets' table.
    expect(await page.isHidden('#caps-shared')).toBe(true);

    // Context: the inlet run above.
    await page.click('#tabs button[data-view="context"]');
    await settled(page);
    expect(await page.textContent('#context-cards div:first-child dd')).toBe('1');
    expect(await page.$$eval('#context-chart rect[data-kind]', (rects) => rects.length)).toBe(2);
    expect(await page.isHidden('#context-empty')).toBe(true);
    // The share of the ledger's prompt tokens read from the provider's cache, for the page's range (this month):
    // today's replies include t1, 200 of its 1,200 prompt tokens cached.
    const month = (await request(runtime.app).get('/usage/context').set(runtime.auth).expect(200)).body;
    expect(month.totals.cachedTokens).toBeGreaterThanOrEqual(200);
    const cachedCard = await page.$$eval('#context-cards div', (cards) =>
      cards
        .filter((card) => card.querySelector('dt')?.textContent === 'Prompt tokens from cache')
        .map((card) => card.querySelector('dd')?.textContent ?? ''),
    );
    expect(cachedCard).toHaveLength(1);
    expect(Number.parseFloat(cachedCard[0]!)).toBeCloseTo(month.totals.cachedShare * 100, 0);
    expect(Number.parseFloat(cachedCard[0]!)).toBeGreaterThan(0);

    // Status: the three filters loaded, the SQLite backend.
    await page.click('#tabs button[data-view="status"]');
    await settled(page);
    const filters = await page.$$eval('#filters-table tbody th', (cells) =>
      cells.map((cell) => cell.textContent).sort(),
    );
    expect(filters).toEqual(['accounting', 'context', 'spend-limit']);
    expect(await page.textContent('#status-cards')).toContain('sqlite');

    // Keyboard: the tabs are reachable and work with Enter.
    await page.focus('#tabs button[data-view="spend"]');
    await page.keyboard.press('Enter');
    await settled(page);
    expect(await page.getAttribute('#tabs button[data-view="spend"]', 'aria-current')).toBe('page');
    expect(consoleErrors).toEqual([]);
    await page.close();
  }, 120_000);

  it('a wrong key shows a clear sign-in error; the form then signs in; an empty custom range says what to do', async () => {
    const page = await openPage('#key=not-the-key');
    await page.locator('#sign-in-error:not(:empty)').waitFor();
    expect(await page.textContent('#sign-in-error')).toBe(
      'Sign-in failed: Invalid API key. Check the key and try again.',
    );
    expect(await page.isVisible('#tabs')).toBe(false);
    expect(page.url()).toBe(`${base}/dashboard`);
    await page.fill('#key', runtime.apiKey);
    await page.press('#key', 'Enter');
    await page.waitForSelector('#spend-chart svg');
    expect(await page.isVisible('#tabs')).toBe(true);
    expect(await page.textContent('#sign-in-error')).toBe('');

    // A custom range with no usage: an empty state that says what to do, zero-filled days, empty tables.
    await page.locator('body[data-loading="false"]').waitFor();
    expect(await page.isHidden('#spend-empty')).toBe(true);
    await page.selectOption('#range', 'custom');
    await page.fill('#from', '2020-01-01');
    await page.fill('#to', '2020-01-03');
    await page.click('#apply-range');
    await page.locator('body[data-loading="false"]').waitFor();
    expect(await page.isVisible('#spend-empty')).toBe(true);
    expect(await page.textContent('#spend-empty')).toContain('connect Open WebUI');
    expect(
      await page.$$eval('#spend-chart svg g[data-day]', (groups) =>
        groups.map((group) => group.getAttribute('data-day')),
      ),
    ).toEqual(['2020-01-01', '2020-01-02', '2020-01-03']);
    expect(await page.$$eval('#top-users tbody tr', (rows) => rows.length)).toBe(0);
    expect(await totalCost(page)).toBe('0');
    await page.close();
  }, 120_000);
});
