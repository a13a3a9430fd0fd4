import type { Server } from 'node:http';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chromiumForTests } from '../helpers/chromium.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { SEED_ENV, seedThroughOutlets, type SeedReply } from './helpers/seed-through-outlets.js';

/** A reply of `user` on a November 2026 day and hour, reported at `cost`. */
const reply = (id: string, user: string, day: number, hour: number, cost: string): SeedReply => ({
  id,
  time: Date.UTC(2026, 10, day, hour),
  user,
  model: 'openai/gpt-4o',
  prompt: 1,
  completion: 1,
  cost,
});

/**
 * The Caps view's pace in a real headless Chromium against a real server on loopback, on 20 November 2026 at noon
 * (the server's `Date`, in this thread, is set there while the page reads it): docs/accounting.md's example 1 (hal),
 * a user whose spend stopped (ida), one past the cap (jo), and a daily cap, which has no pace (kim); the same example as
 * a group's spend (Research, its members liz and max), a model pattern's daily budget used up, a group with member caps
 * only.
 */
describe("the Caps view's pace in a real browser", () => {
  let runtime: TestRuntime;
  let server: Server;
  let base: string;
  const browser = chromiumForTests();
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['accounting.ts', 'spend-limit.ts'], env: SEED_ENV });
    // The valves first: a reply counts toward the groups' and models' budgets the valves name when it is recorded.
    await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({
        user_limits: {
          hal: { monthly_usd: 30 },
          ida: { monthly_usd: 30 },
          jo: { monthly_usd: 10 },
          kim: { daily_usd: 5 },
        },
        group_limits: {
          Research: { monthly_usd: 30, daily_usd: 5, member_daily_usd: 2 },
          Interns: { member_monthly_usd: 3 },
        },
        model_limits: { 'openai/gpt-5*': { daily_usd: 1 } },
        group_members: { Research: ['liz', 'max'] },
      })
      .expect(200);
    await seedThroughOutlets(runtime.app, runtime.auth, [
      ...[13, 14, 15, 16, 17, 18, 19].map((day) => reply(`h${day}`, 'hal', day, 12, '2')),
      reply('h20', 'hal', 20, 6, '1'),
      reply('i1', 'ida', 1, 9, '15'),
      reply('j1', 'jo', 19, 9, '12'),
      reply('k1', 'kim', 20, 8, '1'),
      // docs/accounting.md's example 1 as a group's spend: liz and max of Research $1 each on 13–19, liz $1 on the 20th.
      ...[13, 14, 15, 16, 17, 18, 19].flatMap((day) => [
        reply(`l${day}`, 'liz', day, 10, '1'),
        reply(`m${day}`, 'max', day, 11, '1'),
      ]),
      reply('l20', 'liz', 20, 6, '1'),
      // ned, in no group, spends $1.25 on a gpt-5 model: the whole 'openai/gpt-5*' budget of $1 a day.
      { ...reply('n20', 'ned', 20, 8, '1.25'), model: 'openai/gpt-5-mini' },
    ]);
    server = runtime.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    await browser.launch();
  }, 120_000);
  afterAll(async () => {
    vi.useRealTimers();
    await browser.close();
    await new Promise((resolve) => server?.close(resolve));
    await runtime?.dispose();
  });

  /** The Caps view as the page shows it at noon on 20 November 2026 (console errors collected). */
  async function openCaps() {
    const page = await browser.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 10, 20, 12));
    try {
      await page.goto(`${base}/dashboard#key=${runtime.apiKey}`);
      await page.locator('body[data-loading="false"]').waitFor();
      await page.click('#tabs button[data-view="caps"]');
      await page.locator('#caps-table tbody tr').first().waitFor();
      await page.locator('body[data-loading="false"]').waitFor();
    } finally {
      vi.useRealTimers();
    }
    return page;
  }

  it('shows each monthly cap’s projected month-end spend and the day it is passed; who will pass one', async () => {
    const page = await openCaps();
    const rows = await page.$$eval('#caps-table tbody tr', (trs) =>
      trs.map((tr) => [...tr.children].map((cell) => cell.textContent)),
    );
    const byUser = Object.fromEntries(rows.map((row) => [row[0], row]));
    // User, role, period, spent, cap, used, projected, pace, (resets), state.
    expect(byUser['hal@example.com']?.slice(0, 8)).toEqual([
      'hal@example.com',
      'user',
      'monthly',
      '$15.00',
      '$30.00',
      '50%',
      '$36.00',
      'Passes on Nov 28',
    ]);
    expect(byUser['hal@example.com']?.at(-1)).toBe('OK');
    expect(byUser['ida@example.com']?.slice(6, 8)).toEqual(['$15.00', 'Within cap']);
    // jo: $12 on the 19th, $12 ÷ 7 a day over the last 7 full days: $12 + $18 projected, the cap already reached.
    expect(byUser['jo@example.com']?.slice(6, 8)).toEqual(['$30.00', 'Reached']);
    expect(byUser['jo@example.com']?.at(-1)).toBe('Blocked');
    expect(byUser['kim@example.com']?.slice(2, 8)).toEqual(['daily', '$1.00', '$5.00', '20%', '—', '—']);

    const hal = page.locator('#caps-table tbody tr', { hasText: 'hal@example.com' });
    expect(await hal.locator('td[data-exact="36"]').getAttribute('title')).toBe(
      '$2.00 a day (the last 7 full days) for the rest of the month',
    );
    expect(await hal.locator('td.state-warn').getAttribute('data-day')).toBe('2026-11-28');
    expect(await page.textContent('#caps-passing')).toBe(
      'On pace to pass a monthly cap this month: hal@example.com (Nov 28)',
    );
    expect(consoleErrors).toEqual([]);
  });

  it("shows each group's and model pattern's budget beside the users: spend, cap, pace, who is blocked", async () => {
    const page = await openCaps();
    expect(await page.isHidden('#caps-shared')).toBe(false);
    // Each row: the name's note (a group's cap on each member's own spend), then every cell's text without it.
    const rows = await page.$$eval('#shared-table tbody tr', (trs) =>
      trs.map((tr) => {
        const note = tr.querySelector('th .note')?.textContent ?? null;
        const cells = [...tr.children].map((cell) => cell.textContent ?? '');
        cells[0] = cells[0]!.slice(0, cells[0]!.length - (note?.length ?? 0));
        return [note, ...cells];
      }),
    );
    // Note, budget, kind, period, spent, cap, used, projected, pace, (resets), state.
    expect(rows.map((row) => [...row.slice(0, 9), row.at(-1)])).toEqual([
      ['each member $2.00 a day', 'Research', 'group', 'daily', '$1.00', '$5.00', '20%', '—', '—', 'OK'],
      [
        'each member $2.00 a day',
        'Research',
        'group',
        'monthly',
        '$15.00',
        '$30.00',
        '50%',
        '$36.00',
        'Passes on Nov 28',
        'OK',
      ],
      ['each member $3.00 a month', 'Interns', 'group', '—', '—', '—', '—', '—', '—', '—'],
      [null, 'openai/gpt-5*', 'model', 'daily', '$1.25', '$1.00', '125%', '—', '—', 'Blocked'],
    ]);
    const research = page.locator('#shared-table tbody tr', { hasText: 'monthly' });
    expect(await research.locator('td[data-exact="36"]').getAttribute('title')).toBe(
      '$2.00 a day (the last 7 full days) for the rest of the month',
    );
    expect(await research.locator('td.state-warn').getAttribute('data-day')).toBe('2026-11-28');
    expect(await page.locator('#shared-table tbody tr', { hasText: 'gpt-5' }).locator('.bar.full').count()).toBe(1);
    expect(await page.textContent('#shared-blocked')).toBe(
      'Budgets used up now (everyone they hold is refused): openai/gpt-5*',
    );
    expect(await page.textContent('#shared-passing')).toBe(
      'On pace to pass a monthly budget this month: Research (Nov 28)',
    );
    // The members' own caps in the users' table: Research's $2 a day each.
    const users = await page.$$eval('#caps-table tbody tr', (trs) =>
      trs.map((tr) => [...tr.children].slice(0, 6).map((cell) => cell.textContent)),
    );
    expect(users).toContainEqual(['liz@example.com', 'user', 'daily', '$1.00', '$2.00', '50%']);
    expect(users).toContainEqual(['max@example.com', 'user', 'daily', '$0.00', '$2.00', '0%']);
    expect(consoleErrors).toEqual([]);
  });
});
