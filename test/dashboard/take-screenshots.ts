/**
 * `npm run screenshots`: a throw-away Eunoe with a month of made-up usage, opened in Debian's
 * Chromium (see test/helpers/chromium.ts); saves each view at 1280×800 (Spend and Caps as whole pages; and Spend in dark mode
 * and at phone width, and one run's page of the Runs view) under docs/screenshots/. Rerun it after changing the page.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { launchChromium } from '../helpers/chromium.js';
import { createTestRuntime, repoRoot } from '../helpers/create-test-runtime.js';
import { provided } from '../../src/runtime/host/service-registry.js';
import { contextRunsService, contextStatsService } from '../../src/features/context/services.js';
import { fillerText } from '../filters/helpers/flag-chats.js';
import { waitFor } from '../helpers/wait-for.js';

const DAY = 86_400_000;
const out = path.join(repoRoot, 'docs/screenshots');
mkdirSync(out, { recursive: true });

const runtime = await createTestRuntime({ filters: ['accounting.ts', 'spend-limit.ts', 'context.ts'] });
try {
  const ledger = runtime.services.ledger!;
  const stats = provided(runtime.services, contextStatsService)!;
  const users = ['ann@example.com', 'bob@example.com', 'cat@example.com', 'dan@example.com'];
  const models = ['openai/gpt-4o', 'anthropic/claude-3.5-sonnet', 'openai/gpt-4o-mini', 'google/gemini-2.0-flash-001'];
  const now = Date.now();
  // Groups and model budgets (the valves below): ann and bob are in Research, Claude models have a budget of their own.
  const research = new Set(['ann@example.com', 'bob@example.com']);
  const scopesOf = (user: string, model: string) => [
    ...(research.has(user) ? ['g:Research'] : []),
    ...(model.startsWith('anthropic/') ? ['m:anthropic/*'] : []),
  ];
  let id = 0;
  for (let day = 0; day < 40; day++) {
    for (let reply = 0; reply < 6; reply++) {
      const model = (day + reply) % models.length;
      const prompt = 800 + ((day * 37 + reply * 101) % 4000);
      const user = users[(day * 3 + reply) % users.length]!;
      await ledger.record({
        messageId: `shot-${id++}`,
        time: now - day * DAY - reply * 600_000,
        userId: user,
        userRole: 'user',
        model: models[model]!,
        pricedAs: models[model]!,
        promptTokens: prompt,
        completionTokens: 150 + reply * 40,
        cachedTokens: reply % 2 ? 512 : 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        totalTokens: prompt + 150 + reply * 40,
        cost: ((prompt * (model + 1) * 2.5) / 1_000_000 + reply * 0.0011).toFixed(6),
        costSource: 'reported',
        usageSource: 'reported',
        scopes: scopesOf(user, models[model]!),
      });
    }
    const before = 18_000 + ((day * 2_741) % 20_000);
    await stats.record(
      {
        tokensBefore: before,
        tokensAfter: Math.round(before * 0.22),
        kept: 40,
        summarized: 6,
        dropped: 120,
        summarizerCalls: 2,
        cacheHits: 4,
      },
      now - day * DAY,
    );
  }
  // A model no price table knows: two replies came with the provider's cost, eight without (unpriced).
  for (let reply = 0; reply < 10; reply++) {
    await ledger.record({
      messageId: `shot-house-${reply}`,
      time: now - (reply % 5) * DAY - 300_000,
      userId: users[reply % users.length]!,
      userRole: 'user',
      model: 'acme/house-model-2026-preview',
      promptTokens: 2400,
      completionTokens: 320,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      totalTokens: 2720,
      cost: reply < 2 ? '0.0123' : '0',
      costSource: reply < 2 ? 'reported' : 'unpriced',
      usageSource: 'reported',
    });
  }
  await request(runtime.app)
    .post('/spend-limit/valves/update')
    .set(runtime.auth)
    .send({
      monthly_limit_usd: 5,
      user_limits: { 'ann@example.com': { daily_usd: 0.02 } },
      group_limits: {
        Research: { daily_usd: 0.5, monthly_usd: 0.8, member_daily_usd: 0.25 },
        Support: { monthly_usd: 10 },
        Interns: { member_monthly_usd: 1 },
      },
      model_limits: { 'anthropic/*': { daily_usd: 0.02 } },
      group_members: { Research: [...research] },
    })
    .expect(200);
  // Runs: real inlets of the context filter (preview mode), two chats of two users.
  await request(runtime.app)
    .post('/context/valves/update')
    .set(runtime.auth)
    .send({ max_tokens: 1500, recent: 4, inspect: 'preview' })
    .expect(200);
  const chat = (turns: number, question: string) => [
    { role: 'system', content: 'You are a helpful assistant.' },
    ...Array.from({ length: turns }, (_, turn) => [
      { role: 'user', content: fillerText('u', turn, turn % 7 === 3) },
      { role: 'assistant', content: fillerText('a', turn) },
    ]).flat(),
    { role: 'user', content: question },
  ];
  for (const [turns, chatId, user, model, question] of [
    [20, 'chat-7f3a', 'ann@example.com', 'openai/gpt-4o', 'What did we decide about the topic?'],
    [28, 'chat-7f3a', 'ann@example.com', 'openai/gpt-4o', 'And the topic before that?'],
    [12, 'chat-91bc', 'bob@example.com', 'anthropic/claude-3.5-sonnet', '!context=3 Where were we?'],
    [40, 'chat-7f3a', 'ann@example.com', 'openai/gpt-4o', 'Summarise the topic for me.'],
  ] as const) {
    await request(runtime.app)
      .post('/context/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model, messages: chat(turns, question), metadata: { chat_id: chatId } }, user: { id: user } })
      .expect(200);
  }
  const runs = provided(runtime.services, contextRunsService)!;
  await waitFor(async () => (await runs.list({ limit: 10 })).runs.length === 4, { timeoutMs: 30_000 });
  const newest = (await runs.list({ limit: 1 })).runs[0]!;
  const server = runtime.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}/dashboard`;
  const shoot = async (options: Parameters<typeof launchChromium>[0], views: string[], suffix = '') => {
    const browser = await launchChromium(options);
    try {
      const page = await browser.context.newPage();
      await page.goto(`${base}#key=${runtime.apiKey}`);
      await page.locator('#spend-chart svg').waitFor();
      await page.selectOption('#range', '30');
      await page.locator('body[data-loading="false"]').waitFor();
      for (const view of views) {
        await page.click(`#tabs button[data-view="${view}"]`);
        await page.locator('body[data-loading="false"]').waitFor();
        const file = path.join(out, `${view}${suffix}.png`);
        // Spend and Caps at desktop width whole (their last tables are below the fold), the others as the window
        // shows them.
        await page.screenshot({ path: file, fullPage: (view === 'spend' || view === 'caps') && !suffix });
        console.log(`saved ${path.relative(repoRoot, file)}`);
      }
    } finally {
      await browser.close();
    }
  };
  await shoot({}, ['spend', 'caps', 'context', 'runs', 'status']);
  // A run's page, a message focused from the keyboard.
  const browser = await launchChromium({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await browser.context.newPage();
    await page.goto(`${base}#key=${runtime.apiKey}`);
    await page.locator('#tabs:not([hidden])').waitFor();
    await page.evaluate(`window.location.hash = ${JSON.stringify(`#runs/${newest.id}`)}`);
    await page.locator('#run-detail:not([hidden])').waitFor();
    await page.locator('body[data-loading="false"]').waitFor();
    await page.focus('#run-strip li[tabindex="0"]');
    for (let step = 0; step < 14; step++) await page.keyboard.press('ArrowRight');
    const file = path.join(out, 'run.png');
    await page.screenshot({ path: file });
    console.log(`saved ${path.relative(repoRoot, file)}`);
  } finally {
    await browser.close();
  }
  await shoot({ colorScheme: 'dark' }, ['spend'], '-dark');
  await shoot({ viewport: { width: 390, height: 844 } }, ['spend'], '-phone');
  server.close();
} finally {
  await runtime.dispose();
}
