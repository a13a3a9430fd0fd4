import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { messageIds, planContext, type PlanInput } from '../../src/domain/engine/index.js';
import { compressSettings, type CompressSettings } from '../../src/features/context/compress/compress-settings.js';
import { LlmSummarizer } from '../../src/features/context/compress/llm-summarizer.js';
import { planAndCompress } from '../../src/features/context/compress/plan-and-compress.js';
import { SummaryCache } from '../../src/features/context/compress/summary-cache.js';
import { DEFAULT_LEVEL_POLICY } from '../../src/features/context/compress/summary-level.js';
import { LlmClient } from '../../src/domain/llm/llm-client.js';
import { chatReply, startLoopback, type LoopbackServer, type Script } from '../llm/helpers/loopback-openai.js';
import { faithfulSummary, orderChat, promptTokens, type Message } from './helpers/order-chat.js';
import { tempStore } from './helpers/temp-store.js';
import { waitFor } from '../helpers/wait-for.js';

/** Engine options pinned (as the context filter's valves pass them), so engine default tuning does not move these cases. */
const ENGINE = { algorithm: 'recency', weighting: 'static', recencyFactor: 1.5, recent: 4 } as const;

let server: LoopbackServer;
let store: Awaited<ReturnType<typeof tempStore>>;
beforeAll(async () => {
  server = await startLoopback(faithfulSummary);
});
afterAll(async () => server.close());
afterEach(async () => store?.dispose());

/** Plans `messages` under `maxTokens` with summaries from the loopback server (fresh store unless `keepStore`). */
async function run(
  messages: Message[],
  maxTokens: number,
  options: {
    script?: Script;
    settings?: Partial<CompressSettings>;
    model?: string;
    timeoutMs?: number;
    keepStore?: boolean;
    marks?: PlanInput['marks'];
  } = {},
) {
  server.script = options.script ?? faithfulSummary;
  if (!options.keepStore) {
    await store?.dispose();
    store = await tempStore();
  }
  const client = new LlmClient({
    baseUrl: server.url,
    model: options.model ?? 'mini',
    retries: 0,
    timeoutMs: options.timeoutMs ?? 5000,
  });
  const input: PlanInput = {
    messages,
    model: 'gpt-4o',
    options: { ...ENGINE, maxTokens, summarize: true },
    marks: options.marks,
  };
  const compression = {
    summarizer: new LlmSummarizer(client),
    cache: new SummaryCache(store.state, 60_000),
    settings: compressSettings({ model: client.options.model, ...options.settings }),
  };
  const before = server.chatCalls();
  const context = await planAndCompress(input, compression);
  return { ...context, outcome: context.outcome!, calls: server.chatCalls() - before };
}

const blockOf = (messages: unknown[]) =>
  (messages as Message[]).find(
    (message) => message.role === 'system' && message.content.startsWith('[Earlier in this conversation'),
  );

describe('compressPlan levels and budget', () => {
  it('few messages over budget: one summary per turn, in original order, after the system prompt, within budget', async () => {
    const messages = orderChat(12);
    const { outcome, calls, messages: sent } = await run(messages, 1000);
    expect(outcome.level).toBe('turn');
    expect(calls).toBe(3);
    expect(outcome.summarized).toBe(6);
    const block = blockOf(sent)!;
    expect(sent.indexOf(block)).toBe(1);
    expect(block.content.split('\n')[0]).toBe('[Earlier in this conversation — 6 messages summarized]');
    expect([...block.content.matchAll(/ORD-(\d+)/g)].map((match) => match[1])).toEqual(['1000', '1001', '1002']);
    expect(promptTokens(sent)).toBe(outcome.tokensAfter);
    expect(promptTokens(sent)).toBeLessThanOrEqual(1000);
  });

  it('more messages: segments of four turns (two calls for six turns)', async () => {
    const { outcome, calls, messages: sent } = await run(orderChat(12), 800);
    expect(outcome.level).toBe('segment');
    expect(outcome.summarized).toBe(12);
    expect(calls).toBe(2);
    expect(blockOf(sent)!.content).toContain('ORD-1005');
    expect(promptTokens(sent)).toBeLessThanOrEqual(800);
  });

  it('most of the history: one whole-conversation summary', async () => {
    const { outcome, calls, messages: sent } = await run(orderChat(12), 600);
    expect(outcome.level).toBe('conversation');
    expect(calls).toBe(1);
    expect(promptTokens(sent)).toBeLessThanOrEqual(600);
  });

  it('a disabled level falls back to the nearest enabled one', async () => {
    const levels = { ...DEFAULT_LEVEL_POLICY, enabled: { turn: true, segment: true, conversation: false } };
    const { outcome } = await run(orderChat(12), 600, { settings: { levels } });
    expect(outcome.level).toBe('segment');
  });

  it.each([1000, 900, 800, 700, 600, 500])(
    'holds the budget of %i tokens including the summary block',
    async (budget) => {
      const { outcome, messages: sent } = await run(orderChat(12), budget);
      expect(outcome.summarized).toBeGreaterThan(0);
      expect(promptTokens(sent)).toBe(outcome.tokensAfter);
      expect(promptTokens(sent)).toBeLessThanOrEqual(budget);
    },
  );

  it('truncates a summary longer than reserved instead of exceeding the budget', async () => {
    const rambling: Script = () =>
      chatReply(`order ORD-1000 ${'and then a great many further words about it '.repeat(200)}`);
    const { outcome, messages: sent } = await run(orderChat(12), 800, { script: rambling });
    expect(outcome.truncated).toBe(true);
    expect(outcome.notes.join(' ')).toMatch(/truncated/);
    expect(blockOf(sent)).toBeDefined();
    expect(promptTokens(sent)).toBeLessThanOrEqual(800);
  });
});

describe('compressPlan cache', () => {
  it('never summarizes the same text twice; the model is part of the key', async () => {
    const messages = orderChat(12);
    const first = await run(messages, 800);
    expect(first.calls).toBe(2);
    const second = await run(messages, 800, { keepStore: true });
    expect(second.calls).toBe(0);
    expect(second.outcome.cacheHits).toBe(2);
    expect(second.messages).toEqual(first.messages);
    const otherModel = await run(messages, 800, { keepStore: true, model: 'other' });
    expect(otherModel.calls).toBe(2);
  });

  it('a longer chat reuses the cached turns it shares with the shorter one', async () => {
    await run(orderChat(12), 1000);
    const grown = await run(orderChat(12, 'and one more thing about the orders?'), 1000, { keepStore: true });
    expect(grown.outcome.level).toBe('turn');
    expect(grown.outcome.cacheHits).toBeGreaterThan(0);
  });
});

describe('compressPlan stable keys and ahead-of-time warming', () => {
  it('a segment mostly summarized is summarized whole, so keeping one of its messages later still hits the cache', async () => {
    const messages = orderChat(12);
    const first = await run(messages, 800);
    const firstSummary = blockOf(first.messages)!.content.split('\n\n')[1];
    const pinned = await run(messages, 800, {
      keepStore: true,
      marks: { [messageIds(messages)[3]!]: { pinned: true } },
    });
    expect(pinned.messages).toContainEqual(messages[3]);
    expect(pinned.outcome.cacheHits).toBeGreaterThanOrEqual(1);
    expect(blockOf(pinned.messages)!.content.split('\n\n')[1]).toBe(firstSummary);
  });

  it('warming writes the segment summaries too; a later conversation-level plan over other segments uses them without a call', async () => {
    const messages = orderChat(20);
    const warm = await run(messages, 900, { settings: { warm: true } });
    expect(warm.outcome.level).toBe('conversation');
    expect(warm.calls).toBe(5);
    const later = await run(messages, 1000, { keepStore: true });
    expect(later.outcome.level).toBe('conversation');
    expect(later.calls).toBe(0);
    expect(later.outcome.notes.join(' ')).toMatch(/segment summaries were used/);
    expect(blockOf(later.messages)!.content).toContain('ORD-1011');
    expect(promptTokens(later.messages)).toBeLessThanOrEqual(1000);
    const cold = await run(messages, 1000);
    expect(cold.calls).toBe(2);
  });
});

describe('compressPlan failures: a failed or empty summary is never cached', () => {
  it.each<[string, Script, number?]>([
    ['a 500', () => ({ status: 500, json: { error: 'down' } })],
    ['a timeout', () => ({ ...chatReply('late'), delayMs: 1500 }), 100],
    ['an empty summary', () => chatReply('   ')],
    ["a '-' placeholder reply", () => chatReply('-')],
  ])('%s: the messages are dropped, nothing is cached, and the plan notes say so', async (_name, script, timeoutMs) => {
    const messages = orderChat(12);
    const failed = await run(messages, 800, { script, timeoutMs });
    expect(blockOf(failed.messages)).toBeUndefined();
    expect(failed.messages).toEqual(
      planContext({ messages, model: 'gpt-4o', options: { ...ENGINE, maxTokens: 800 } }).messages,
    );
    expect(failed.outcome.dropped).toBe(12);
    expect(failed.outcome.notes.join(' ')).toMatch(/failed .*dropped instead, not cached/);
    expect(failed.result.plan.notes.join(' ')).toMatch(
      /failed .*dropped instead, not cached.*planned without summaries/,
    );
    expect(promptTokens(failed.messages)).toBeLessThanOrEqual(800);
    // A call the client gave up on may reach the loopback server late on a busy machine: let the count settle, so
    // the retry's calls are counted alone.
    await waitFor(async () => {
      const seen = server.chatCalls();
      await new Promise((resolve) => setTimeout(resolve, 200));
      return server.chatCalls() === seen;
    });
    const retried = await run(messages, 800, { keepStore: true });
    expect(retried.calls).toBe(2);
    expect(blockOf(retried.messages)).toBeDefined();
  });
});

describe('fact receipts', () => {
  const lossy: Script = () => chatReply('The user discussed some orders.');

  it('report: lists the missing facts and sends the summary as written', async () => {
    const { outcome, messages: sent } = await run(orderChat(12), 1000, {
      script: lossy,
      settings: { factReceipt: 'report' },
    });
    const missing = outcome.receipts.flatMap((receipt) => receipt.missing.map((fact) => fact.text));
    expect(missing).toEqual(expect.arrayContaining(['ORD-1000', '$100', 'ORD-1002', '$300']));
    expect(outcome.receipts.every((receipt) => receipt.action === 'reported')).toBe(true);
    expect(blockOf(sent)!.content).not.toContain('ORD-1000');
  });

  it('append: the missing facts are appended to the summary', async () => {
    const { outcome, messages: sent } = await run(orderChat(12), 1000, {
      script: lossy,
      settings: { factReceipt: 'append' },
    });
    expect(outcome.receipts.every((receipt) => receipt.action === 'appended')).toBe(true);
    expect(blockOf(sent)!.content).toMatch(/The user discussed some orders\.\nFacts: [^\n]*ORD-1000/);
    expect(blockOf(sent)!.content).toMatch(/Facts: [^\n]*\$100/);
    expect(promptTokens(sent)).toBeLessThanOrEqual(1000);
  });

  it('a faithful summary has an empty receipt', async () => {
    const { outcome } = await run(orderChat(12), 1000);
    expect(outcome.receipts.length).toBe(3);
    expect(outcome.receipts.every((receipt) => receipt.missing.length === 0 && receipt.checked > 0)).toBe(true);
  });

  it('keep_source: the source messages are re-planned as pinned and sent verbatim', async () => {
    const messages = orderChat(12);
    const dropped = planContext({
      messages,
      model: 'gpt-4o',
      options: { ...ENGINE, maxTokens: 1000, summarize: true },
    });
    const lossyFirst: Script = (request) =>
      String(request.body.messages.at(-1).content).includes('ORD-1000')
        ? chatReply('The user discussed an order.')
        : faithfulSummary(request);
    const {
      outcome,
      keptSources,
      messages: sent,
    } = await run(messages, 1000, { script: lossyFirst, settings: { factReceipt: 'keep_source' } });
    expect(dropped.messages).not.toContainEqual(messages[1]);
    expect(keptSources.length).toBeGreaterThan(0);
    expect(sent).toContainEqual(messages[1]);
    expect(outcome.notes.join(' ')).toMatch(/keep_source/);
    expect(promptTokens(sent)).toBeLessThanOrEqual(1000);
  });
});
