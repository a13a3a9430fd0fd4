import type { Server } from 'node:http';
import request from 'supertest';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunHead, RunRecord } from '../../src/features/context/runs/run-record.js';
import type { ChatMessage } from '../../src/core/messages/chat-message.js';
import { chromiumForTests } from '../helpers/chromium.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { waitFor } from '../helpers/wait-for.js';
import { fillerText } from '../filters/helpers/flag-chats.js';
import { syslogText } from '../helpers/syslog.js';

/**
 * The dashboard's Runs view in a real headless Chromium against a real server on loopback, its runs recorded by
 * real inlets of the context filter: the list and its filters, a run's strip (dispositions, scores and reasons on
 * focus, arrow keys, order by score), a trimmed message's mark and badge, the budget bar, a direct link to a run, the empty state, no console errors.
 */
describe('dashboard Runs view in a real browser', () => {
  let runtime: TestRuntime;
  let empty: TestRuntime;
  let server: Server;
  let emptyServer: Server;
  const browser = chromiumForTests();
  const consoleErrors: string[] = [];
  const chat = (turns: number, question: string): ChatMessage[] => [
    { role: 'system', content: 'You are a helpful assistant.' },
    ...Array.from({ length: turns }, (_, turn): ChatMessage[] => [
      { role: 'user', content: fillerText('u', turn, turn === 1) },
      { role: 'assistant', content: fillerText('a', turn) },
    ]).flat(),
    { role: 'user', content: question },
  ];
  /** An earlier turn's tool call and its 2,500-line log, then a question about one line of it. */
  const toolChat = (): ChatMessage[] => [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'Show me the system log of the server.' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_log', arguments: '{}' } }],
    },
    {
      role: 'tool',
      tool_call_id: 'call_1',
      content: syslogText(2500, 1300, { sameMinute: true }),
    },
    { role: 'assistant', content: 'The log shows routine session starts and one kernel warning.' },
    { role: 'user', content: 'Which controller overheated, and what was its error code?' },
  ];
  const inlet = (messages: ChatMessage[], chatId: string, user: string, model: string) =>
    request(runtime.app)
      .post('/context/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model, messages, metadata: { chat_id: chatId } }, user: { id: user, role: 'user' } })
      .expect(200);
  const listen = async (app: TestRuntime['app']) => {
    const listening = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listening.once('listening', resolve));
    return { listening, base: `http://127.0.0.1:${(listening.address() as { port: number }).port}` };
  };
  let base: string;
  let emptyBase: string;

  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['context.ts'] });
    await request(runtime.app)
      .post('/context/valves/update')
      .set(runtime.auth)
      .send({ max_tokens: 500, recent: 2, inspect: 'preview' })
      .expect(200);
    await inlet(chat(6, 'What did we say about the topic?'), 'chat-ann', 'ann', 'openai/gpt-4o');
    await inlet(chat(10, 'And now?'), 'chat-ann', 'ann', 'openai/gpt-4o');
    await inlet(chat(4, '!context=1 Just the last turn'), 'chat-bob', 'bob', 'anthropic/claude-3.5-sonnet');
    // A long tool result of an earlier turn, trimmed by the engine (a budget with room for a share of it).
    await request(runtime.app).post('/context/valves/update').set(runtime.auth).send({ max_tokens: 2000 }).expect(200);
    await inlet(toolChat(), 'chat-cat', 'cat', 'openai/gpt-4o');
    await waitFor(async () => (await request(runtime.app).get('/runs').set(runtime.auth)).body.runs?.length === 4, {
      timeoutMs: 30_000,
    });
    empty = await createTestRuntime({ filters: ['context.ts'] });
    ({ listening: server, base } = await listen(runtime.app));
    ({ listening: emptyServer, base: emptyBase } = await listen(empty.app));
    await browser.launch();
  }, 120_000);
  afterAll(async () => {
    await browser.close();
    for (const listening of [server, emptyServer]) await new Promise((resolve) => listening?.close(resolve));
    await runtime?.dispose();
    await empty?.dispose();
  });

  async function openRuns(at: string, key: string, fragment = ''): Promise<Page> {
    consoleErrors.length = 0;
    const page = await browser.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    await page.goto(`${at}/dashboard#key=${key}`);
    await page.locator('#tabs:not([hidden])').waitFor();
    await settled(page);
    if (fragment) {
      await page.evaluate(setHash(fragment));
    } else {
      await page.focus('#tabs button[data-view="runs"]');
      await page.keyboard.press('Enter');
    }
    await settled(page);
    return page;
  }
  /** Scripts run in the page (strings: the test's types have no DOM). */
  const setHash = (hash: string) => `window.location.hash = ${JSON.stringify(hash)}`;
  const FOCUSED_INDEX = "document.activeElement?.getAttribute('data-index')";
  const settled = (page: Page) => page.locator('body[data-loading="false"]').waitFor();
  const api = async <T>(path: string) => (await request(runtime.app).get(path).set(runtime.auth).expect(200)).body as T;

  it('lists the runs newest first, filters them, and opens a run by keyboard: strip, focus details, order by score', async () => {
    const page = await openRuns(base, runtime.apiKey);
    const heads = (await api<{ runs: RunHead[] }>('/runs')).runs;
    const listed = await page.$$eval('#runs-table tbody a', (links) =>
      links.map((link) => link.getAttribute('data-run')),
    );
    expect(listed).toEqual(heads.map((head) => head.id));
    expect(await page.isHidden('#runs-empty')).toBe(true);
    // Filter by user (Enter in the field submits).
    await page.fill('#runs-user', 'bob');
    await page.press('#runs-user', 'Enter');
    await settled(page);
    const bob = heads.filter((head) => head.user === 'bob').map((head) => head.id);
    expect(
      await page.$$eval('#runs-table tbody a', (links) => links.map((link) => link.getAttribute('data-run'))),
    ).toEqual(bob);
    await page.fill('#runs-user', 'nobody');
    await page.press('#runs-user', 'Enter');
    await settled(page);
    expect(await page.textContent('#runs-empty')).toBe('No runs match these filters.');
    await page.fill('#runs-user', 'ann');
    await page.fill('#runs-model', 'openai/gpt-4o');
    await page.press('#runs-model', 'Enter');
    await settled(page);
    const annIds = heads.filter((head) => head.user === 'ann').map((head) => head.id);
    expect(
      await page.$$eval('#runs-table tbody a', (links) => links.map((link) => link.getAttribute('data-run'))),
    ).toEqual(annIds);

    // Open the newest of ann's runs with the keyboard.
    await page.focus(`#runs-table a[data-run="${annIds[0]}"]`);
    await page.keyboard.press('Enter');
    await page.locator('#run-detail:not([hidden])').waitFor();
    await settled(page);
    const run = await api<RunRecord>(`/runs/${annIds[0]}`);
    const strip = () =>
      page.$$eval('#run-strip li', (items) =>
        items.map((item) => [
          Number(item.getAttribute('data-index')),
          item.getAttribute('data-disposition'),
          Number(item.getAttribute('data-score')),
        ]),
      );
    expect(await strip()).toEqual(run.messages.map((message) => [message.index, message.disposition, message.score]));
    expect(run.messages.some((message) => message.disposition === 'dropped')).toBe(true);
    expect(await page.textContent('#run-cards')).toContain(String(run.totals.dropped));
    expect(await page.textContent('#run-budget-label')).toContain('of 500 tokens sent (budget from valve)');
    // Focus the strip and move along it: the focused message's score and reason are shown, and its preview.
    await page.focus('#run-strip li[tabindex="0"]');
    await page.keyboard.press('ArrowRight');
    const second = run.messages[1]!;
    expect(await page.evaluate(FOCUSED_INDEX)).toBe('1');
    const focusText = await page.textContent('#run-focus');
    expect(focusText).toContain(`score ${second.score.toFixed(3)}`);
    expect(focusText).toContain(`${second.disposition}: ${second.reason}`);
    expect(await page.textContent('#run-preview')).toBe(second.preview);
    await page.keyboard.press('End');
    expect(await page.evaluate(FOCUSED_INDEX)).toBe(String(run.messages.length - 1));
    // Order by score: highest first.
    await page.selectOption('#run-order', 'score');
    const scores = (await strip()).map(([, , score]) => score as number);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(scores).toHaveLength(run.messages.length);
    // Back to the list.
    await page.click('#run-back');
    await settled(page);
    expect(await page.isVisible('#runs-table')).toBe(true);
    expect(consoleErrors).toEqual([]);
    await page.close();
  }, 120_000);

  it('a link to a run (#runs/<id>) opens its page; a flag’s cause is shown; an unknown run is a clear error', async () => {
    const bob = (await api<{ runs: RunHead[] }>('/runs?user=bob')).runs[0]!;
    const page = await openRuns(base, runtime.apiKey, `#runs/${bob.id}`);
    await page.locator('#run-detail:not([hidden])').waitFor();
    expect(await page.textContent('#run-flags')).toBe('Flags in force: !context=1');
    await page.focus('#run-strip li[tabindex="0"]');
    await page.keyboard.press('ArrowRight');
    expect(await page.textContent('#run-focus')).toContain('dropped: outside !context=1');
    await page.evaluate(setHash('#runs/00000000a-00000000'));
    await page.locator('#load-error:not(:empty)').waitFor();
    expect(await page.textContent('#load-error')).toMatch(/^Could not load runs: No run "00000000a-00000000" is kept/);
    expect(consoleErrors.filter((error) => !error.includes('404'))).toEqual([]);
    await page.close();
  }, 120_000);

  it('a trimmed message is hatched in the strip and badged with its size before and the lines left out', async () => {
    const head = (await api<{ runs: RunHead[] }>('/runs?user=cat')).runs[0]!;
    const run = await api<RunRecord>(`/runs/${head.id}`);
    const tool = run.messages.find((message) => message.role === 'tool')!;
    expect(tool.trimmed).toMatchObject({ unit: 'lines' });
    const { tokensBefore, leftOut } = tool.trimmed!;
    const badge = `trimmed from ${tokensBefore.toLocaleString('en-US')} tokens, ${leftOut.toLocaleString('en-US')} lines left out`;
    const page = await openRuns(base, runtime.apiKey, `#runs/${head.id}`);
    await page.locator('#run-detail:not([hidden])').waitFor();
    // Only the trimmed message is marked in the strip.
    const marked = await page.$$eval('#run-strip li.trimmed', (items) =>
      items.map((item) => [item.getAttribute('data-index'), item.getAttribute('data-trimmed')]),
    );
    expect(marked).toEqual([[String(tool.index), badge]]);
    expect(await page.textContent('#run-cards')).toContain('Trimmed1');
    // The first message (not trimmed): no badge; the tool result focused by keyboard: its badge.
    await page.focus('#run-strip li[tabindex="0"]');
    expect(await page.isHidden('#run-trimmed')).toBe(true);
    for (let step = 0; step < tool.index; step++) await page.keyboard.press('ArrowRight');
    expect(await page.evaluate(FOCUSED_INDEX)).toBe(String(tool.index));
    expect(await page.isVisible('#run-trimmed')).toBe(true);
    expect(await page.textContent('#run-trimmed')).toBe(badge);
    expect(await page.textContent('#run-focus')).toContain(`kept: ${tool.reason}`);
    // Moving on hides it again.
    await page.keyboard.press('ArrowRight');
    expect(await page.isHidden('#run-trimmed')).toBe(true);
    expect(consoleErrors).toEqual([]);
    await page.close();
  }, 120_000);

  it('with no runs recorded the view says how runs come to be', async () => {
    const page = await openRuns(emptyBase, empty.apiKey);
    expect(await page.isVisible('#runs-empty')).toBe(true);
    expect(await page.textContent('#runs-empty')).toContain('The context filter records every request it plans');
    expect(await page.isHidden('#runs-table-wrap')).toBe(true);
    expect(consoleErrors).toEqual([]);
    await page.close();
  }, 120_000);
});
