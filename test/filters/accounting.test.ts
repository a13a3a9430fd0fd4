import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAccountingFilter } from 'eunoe/shipped';
import accountingDefault from '../../filters/accounting.js';
import type { HostServices, FilterBody } from '../../src/runtime/host/types.js';
import type { StateStore } from '../../src/state/types.js';
import type { ChatMessage } from '../../src/core/messages/chat-message.js';
import type { PricingService } from '../../src/runtime/pricing/pricing-service.js';
import { estimatePromptTokens } from '../../src/domain/usage/estimate-tokens.js';
import { add, decimalOf, formatDecimal, mulInt } from '../../src/domain/pricing/decimal.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { hookArgs, realServices } from '../usage/helpers/hook-args.js';

const NOW = Date.UTC(2026, 10, 29, 12);
const filter = createAccountingFilter({ now: () => NOW });
let store: StateStore;
let services: Required<HostServices>;
let pricing: PricingService;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  const temp = await tempSqliteStore();
  store = temp.store;
  ({ services, pricing } = await realServices(store, temp.dir));
  cleanup = async () => {
    await pricing.stop();
    await temp.dispose();
  };
});
afterEach(async () => cleanup());

/** An outlet body as Open WebUI (browser-driven generation) posts it. */
function outletBody(assistant: Record<string, unknown>, extra: Record<string, unknown> = {}): FilterBody {
  return {
    model: 'openai/gpt-4o',
    messages: [
      { id: 'u-1', role: 'user', content: 'Hi', timestamp: 1732900000 },
      { id: 'a-1', role: 'assistant', content: 'Hello!', timestamp: 1732900003, ...assistant },
    ],
    model_item: { id: 'openai/gpt-4o', owned_by: 'openai', info: { base_model_id: null, meta: {} } },
    chat_id: 'c-1',
    session_id: 'sid-1',
    id: 'a-1',
    ...extra,
  };
}
const outlet = (body: FilterBody, more: Partial<Parameters<typeof hookArgs>[1]> = {}) =>
  filter.outlet!(hookArgs(filter, { body, store, services, hook: 'outlet', filterId: 'accounting', ...more }));
const openRouterUsage = {
  prompt_tokens: 1200,
  completion_tokens: 350,
  total_tokens: 1550,
  prompt_tokens_details: { cached_tokens: 1024, cache_write_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0 },
  cost: 0.00522,
  is_byok: false,
  cost_details: {
    upstream_inference_cost: null,
    upstream_inference_prompt_cost: 0.00172,
    upstream_inference_completions_cost: 0.0035,
  },
  input_tokens: 1200,
  output_tokens: 350,
};

describe('accounting outlet', () => {
  it('records OpenRouter usage with its reported cost, once per message id', async () => {
    await outlet(outletBody({ usage: openRouterUsage }));
    await outlet(outletBody({ usage: openRouterUsage }));
    const records = await services.ledger.list({});
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      messageId: 'a-1',
      userId: 'u1',
      userRole: 'user',
      chatId: 'c-1',
      model: 'openai/gpt-4o',
      pricedAs: 'openai/gpt-4o',
      time: NOW,
      promptTokens: 1200,
      completionTokens: 350,
      cachedTokens: 1024,
      totalTokens: 1550,
      cost: '0.00522',
      costSource: 'reported',
      usageSource: 'reported',
    });
    expect(await services.ledger.spent('u1', 0, NOW + 1)).toBe('0.00522');
  });

  it('computes the cost from prices when the provider reports none (cached at its own price)', async () => {
    await outlet(
      outletBody({
        usage: { prompt_tokens: 1200, completion_tokens: 350, prompt_tokens_details: { cached_tokens: 1024 } },
      }),
    );
    expect((await services.ledger.list({}))[0]).toMatchObject({ cost: '0.00522', costSource: 'computed' });
  });

  it('Anthropic-native usage in info.usage (inline outlet) with cache read and write', async () => {
    const body = outletBody(
      {
        info: {
          usage: {
            input_tokens: 452,
            output_tokens: 400,
            cache_read_input_tokens: 2048,
            cache_creation_input_tokens: 500,
          },
        },
      },
      { model: 'claude-3.5-sonnet', id: 'a-2' },
    );
    await outlet(body);
    expect((await services.ledger.list({}))[0]).toMatchObject({
      messageId: 'a-2',
      pricedAs: 'anthropic/claude-3.5-sonnet',
      promptTokens: 3000,
      cost: '0.0098454',
      costSource: 'computed',
    });
  });

  it('a workspace model is priced as its base model', async () => {
    await outlet(
      outletBody(
        { usage: { prompt_tokens: 1200, completion_tokens: 350 } },
        { model: 'team-helper', model_item: { id: 'team-helper', info: { base_model_id: 'gpt-4o' } } },
      ),
    );
    expect((await services.ledger.list({}))[0]).toMatchObject({
      model: 'team-helper',
      pricedAs: 'openai/gpt-4o',
      cost: '0.0065',
    });
  });

  it('long-context tier: the whole request above the threshold at the higher price', async () => {
    await outlet(
      outletBody({ usage: { prompt_tokens: 250_000, completion_tokens: 1000 } }, { model: 'example/long-context' }),
    );
    expect((await services.ledger.list({}))[0]!.cost).toBe('1.27');
  });

  it('without any usage: tokenizer estimate, marked as such', async () => {
    const body = outletBody({});
    await outlet(body);
    const record = (await services.ledger.list({}))[0]!;
    const expectedPrompt = await estimatePromptTokens([{ role: 'user', content: 'Hi' }]);
    expect(record).toMatchObject({
      usageSource: 'estimated',
      costSource: 'estimated',
      promptTokens: expectedPrompt,
      completionTokens: 2,
    });
    const expectedCost = add(mulInt(decimalOf('0.0000025'), expectedPrompt), mulInt(decimalOf('0.00001'), 2));
    expect(record.cost).toBe(formatDecimal(expectedCost));
  });

  it('usage known but price unknown: unpriced, cost 0', async () => {
    await outlet(outletBody({ usage: { prompt_eval_count: 26, eval_count: 290 } }, { model: 'llama3.2:3b' }));
    expect((await services.ledger.list({}))[0]).toMatchObject({
      costSource: 'unpriced',
      cost: '0',
      promptTokens: 26,
      completionTokens: 290,
    });
  });

  it('a state backend failure never breaks the reply; a ledger that takes nothing answers 503, never as if recorded', async () => {
    const broken = await tempSqliteStore();
    await broken.store.close();
    const body = outletBody({ usage: openRouterUsage });
    const args = (ledgerServices: typeof services) =>
      hookArgs(filter, {
        body,
        store: broken.store,
        services: ledgerServices,
        hook: 'outlet',
        filterId: 'accounting',
        valves: { show_usage: true },
      });
    // The chat state (estimates, corrections) unavailable, the ledger working: the reply passes with its usage line.
    const result = await filter.outlet!(args(services));
    expect((result.messages as Array<{ content: string }>)[1]!.content).toMatch(/\$0\.0052\*$/);
    // The ledger unable to keep the record (neither written nor journaled): 503, whatever reject_unrecorded says.
    const brokenServices = {
      ...services,
      ledger: (await import('../../src/runtime/usage/ledger.js')).createLedger(broken.store),
    };
    const refused = await Promise.resolve(filter.outlet!(args(brokenServices))).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ status: 503, code: 'ERR_STATE_UNAVAILABLE' });
    await broken.dispose().catch(() => undefined);
  });

  it('a body without an assistant message records nothing', async () => {
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] };
    expect(await outlet(body)).toBe(body);
    expect(await services.ledger.list({})).toHaveLength(0);
  });
});

describe('cost status line', () => {
  /** The services, with a count of the ledger's spend reads. */
  function countingSpendReads() {
    let reads = 0;
    const ledger = services.ledger;
    const counted: typeof ledger = {
      ...ledger,
      record: (record) => ledger.record(record),
      spent: (...args) => {
        reads += 1;
        return ledger.spent(...args);
      },
    };
    return { services: { ...services, ledger: counted }, reads: () => reads };
  }

  it("reads the user's spend and reports it when its events reach the chat; over a Pipelines outlet, neither", async () => {
    const counting = countingSpendReads();
    const events: unknown[] = [];
    const emit = (event: unknown) => events.push(event);
    await outlet(outletBody({ usage: openRouterUsage }), { services: counting.services, emit, eventsReachUser: false });
    expect(events).toEqual([]);
    expect(counting.reads()).toBe(0);
    // Recorded all the same.
    expect(await services.ledger.spent('u1', 0, NOW + 1)).toBe('0.00522');
    await outlet(outletBody({ usage: openRouterUsage }, { id: 'a-2' }), { services: counting.services, emit });
    expect(counting.reads()).toBe(2); // today and this month
    expect(events).toEqual([
      { type: 'status', data: { description: expect.stringMatching(/^this reply \$/), done: true } },
    ]);
  });
});

describe('usage line', () => {
  it('appended when show_usage is on, keeping every id and chat field', async () => {
    const body = outletBody({ usage: openRouterUsage });
    type Reply = { messages: Array<Record<string, unknown>> };
    const result = (await outlet(body, { valves: { show_usage: true } })) as unknown as Reply & FilterBody;
    expect(result.messages[1]!.content).toBe('Hello!\n\n*1,200 in · 350 out · $0.0052*');
    expect(result.messages.map((message: Record<string, unknown>) => message.id)).toEqual(['u-1', 'a-1']);
    expect(result).toMatchObject({ chat_id: 'c-1', session_id: 'sid-1', id: 'a-1' });
    const again = (await outlet(result, { valves: { show_usage: true } })) as typeof result;
    expect(again.messages[1]!.content).toBe('Hello!\n\n*1,200 in · 350 out · $0.0052*');
  });

  it('hidden by !+nocost, by the user valve, and off by default', async () => {
    const body = outletBody({ usage: openRouterUsage });
    expect(await outlet(body, { valves: { show_usage: true }, flags: { nocost: true } })).toEqual(body);
    expect(await outlet(body, { valves: { show_usage: true }, userValves: { show_usage: 'off' } })).toEqual(body);
    expect(await outlet(body)).toEqual(body);
    const optedIn = (await outlet(body, { userValves: { show_usage: 'on' } })) as {
      messages: Array<{ content: string }>;
    };
    expect(optedIn.messages[1]!.content).toMatch(/\$0\.0052\*$/);
  });

  it('the next inlet strips earlier usage lines from the history, nothing else', async () => {
    const reply = (await outlet(outletBody({ usage: openRouterUsage }), { valves: { show_usage: true } })) as {
      messages: ChatMessage[];
    };
    const messages = [...reply.messages, { id: 'u-2', role: 'user', content: 'Keep *1 in · 2 out* as typed' }];
    const next = await filter.inlet!(
      hookArgs(filter, {
        body: { model: 'openai/gpt-4o', messages, metadata: { chat_id: 'c-1' } },
        store,
        services,
        hook: 'inlet',
        filterId: 'accounting',
      }),
    );
    expect((next.messages as Array<{ content: string }>).map((message) => message.content)).toEqual([
      'Hi',
      'Hello!',
      'Keep *1 in · 2 out* as typed',
    ]);
    const untouched = { model: 'x', messages: [{ role: 'assistant', content: 'plain' }] };
    expect(
      await filter.inlet!(
        hookArgs(filter, {
          body: untouched,
          store,
          services,
          hook: 'inlet',
          filterId: 'accounting',
          valves: { learn_corrections: false },
        }),
      ),
    ).toBe(untouched);
  });

  it('registers the nocost flag and runs after the context filter', () => {
    expect(accountingDefault.flags).toEqual([
      { key: 'nocost', kind: 'boolean', description: 'Hide the usage line for this chat (use !+nocost)' },
    ]);
    expect(accountingDefault.valves!.parse({}).priority).toBe(100);
  });
});

describe('token corrections', () => {
  it('inlet estimate vs actual prompt tokens feeds the per-model correction (models without an exact tokenizer)', async () => {
    const model = 'anthropic/claude-3.5-sonnet';
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is the capital of France? '.repeat(20) },
    ];
    const estimate = await estimatePromptTokens(messages, model);
    const inletBody = { model, messages, metadata: { chat_id: 'c-9' } };
    await filter.inlet!(
      hookArgs(filter, { body: inletBody, store, services, hook: 'inlet', filterId: 'accounting', chatKey: 'c-9' }),
    );
    // A background task of the same chat must not replace the estimate.
    await filter.inlet!(
      hookArgs(filter, {
        body: {
          model,
          messages: [{ role: 'user', content: 'title?' }],
          metadata: { chat_id: 'c-9', task: 'title_generation' },
        },
        store,
        services,
        hook: 'inlet',
        filterId: 'accounting',
        chatKey: 'c-9',
      }),
    );
    const actual = Math.round(estimate * 1.3);
    await outlet(
      outletBody({ usage: { prompt_tokens: actual, completion_tokens: 5 } }, { chat_id: 'c-9', id: 'a-9', model }),
      { chatKey: 'c-9' },
    );
    expect(await services.corrections.get(model)).toBeCloseTo(actual / estimate, 5);
    // The estimate is consumed: a repeated outlet does not observe again.
    await outlet(
      outletBody(
        { usage: { prompt_tokens: estimate * 2, completion_tokens: 5 } },
        { chat_id: 'c-9', id: 'a-10', model },
      ),
      { chatKey: 'c-9' },
    );
    expect(await services.corrections.get(model)).toBeCloseTo(actual / estimate, 5);
  });

  it.each([
    { label: 'a model with an exact tokenizer (gpt-4o)', model: 'openai/gpt-4o', extra: {} },
    {
      label: 'a request with files (RAG is added after the inlet)',
      model: 'anthropic/claude-3-opus',
      extra: { files: [{ id: 'f1' }] },
    },
    { label: 'a request with tools', model: 'anthropic/claude-3-haiku', extra: { tool_ids: ['search'] } },
  ])('learns nothing from $label', async ({ model, extra }) => {
    const messages = [{ role: 'user', content: 'Summarise the attached document. '.repeat(10) }];
    await filter.inlet!(
      hookArgs(filter, {
        body: { model, messages, metadata: { chat_id: `c-${model}` }, ...extra },
        store,
        services,
        hook: 'inlet',
        filterId: 'accounting',
        chatKey: `c-${model}`,
      }),
    );
    await outlet(
      outletBody(
        { usage: { prompt_tokens: 5000, completion_tokens: 5 } },
        { chat_id: `c-${model}`, id: `a-${model}`, model },
      ),
      { chatKey: `c-${model}` },
    );
    expect(await services.corrections.get(model)).toBeUndefined();
  });
});
