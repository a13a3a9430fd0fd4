import { describe, expect, it } from 'vitest';
import { normalizeUsage } from '../../src/domain/usage/normalize-usage.js';
import { findUsage } from '../../src/domain/usage/find-usage.js';

describe('normalizeUsage: every backend usage shape', () => {
  it('OpenAI chat completions (cached and reasoning are subsets)', () => {
    expect(
      normalizeUsage({
        prompt_tokens: 1200,
        completion_tokens: 350,
        total_tokens: 1550,
        prompt_tokens_details: { cached_tokens: 1024 },
        completion_tokens_details: { reasoning_tokens: 100 },
      }),
    ).toEqual({
      promptTokens: 1200,
      completionTokens: 350,
      cachedTokens: 1024,
      cacheWriteTokens: 0,
      reasoningTokens: 100,
      totalTokens: 1550,
      webSearches: 0,
      shape: 'openai',
    });
  });

  it('OpenRouter with cost, cache write and web search', () => {
    const usage = normalizeUsage({
      prompt_tokens: 3000,
      completion_tokens: 400,
      total_tokens: 3400,
      prompt_tokens_details: { cached_tokens: 2048, cache_write_tokens: 500, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
      cost: 0.0098454,
      is_byok: false,
      cost_details: {
        upstream_inference_cost: null,
        upstream_inference_prompt_cost: 0.0038454,
        upstream_inference_completions_cost: 0.006,
      },
      server_tool_use_details: { web_search_requests: 2 },
    });
    expect(usage).toMatchObject({
      promptTokens: 3000,
      cachedTokens: 2048,
      cacheWriteTokens: 500,
      webSearches: 2,
      reportedCost: '0.0098454',
      shape: 'openrouter',
    });
  });

  it('OpenRouter BYOK: the fee plus what the provider key was charged', () => {
    const usage = normalizeUsage({
      prompt_tokens: 10,
      completion_tokens: 5,
      cost: 0.0001,
      is_byok: true,
      cost_details: { upstream_inference_cost: 0.002 },
    });
    expect(usage?.reportedCost).toBe('0.0021');
  });

  it('usage with cost keeps cached tokens and the reported cost, not just three numbers', () => {
    const usage = normalizeUsage({
      prompt_tokens: 123,
      completion_tokens: 7,
      cost: 0.0012,
      prompt_tokens_details: { cached_tokens: 100 },
    });
    expect(usage).toMatchObject({
      promptTokens: 123,
      completionTokens: 7,
      totalTokens: 130,
      cachedTokens: 100,
      reportedCost: '0.0012',
    });
  });

  it('Anthropic native: cache counts are added on top of input_tokens', () => {
    expect(
      normalizeUsage({
        input_tokens: 452,
        output_tokens: 400,
        cache_read_input_tokens: 2048,
        cache_creation_input_tokens: 500,
        cache_creation: { ephemeral_5m_input_tokens: 500, ephemeral_1h_input_tokens: 0 },
      }),
    ).toMatchObject({
      promptTokens: 3000,
      completionTokens: 400,
      cachedTokens: 2048,
      cacheWriteTokens: 500,
      totalTokens: 3400,
      shape: 'anthropic',
    });
  });

  it('OpenAI Responses API', () => {
    expect(
      normalizeUsage({
        input_tokens: 900,
        output_tokens: 80,
        input_tokens_details: { cached_tokens: 512 },
        output_tokens_details: { reasoning_tokens: 30 },
        total_tokens: 980,
      }),
    ).toMatchObject({
      promptTokens: 900,
      completionTokens: 80,
      cachedTokens: 512,
      reasoningTokens: 30,
      shape: 'responses',
    });
  });

  it('Ollama native counters (and Open WebUI conversion with prompt_tokens)', () => {
    expect(
      normalizeUsage({
        prompt_eval_count: 26,
        eval_count: 290,
        total_duration: 5_000_000_000,
        eval_duration: 4_000_000_000,
      }),
    ).toMatchObject({ promptTokens: 26, completionTokens: 290, totalTokens: 316, shape: 'ollama' });
    expect(
      normalizeUsage({
        'response_token/s': 72.5,
        prompt_eval_count: 26,
        eval_count: 290,
        input_tokens: 26,
        output_tokens: 290,
        prompt_tokens: 26,
        completion_tokens: 290,
      }),
    ).toMatchObject({ promptTokens: 26, completionTokens: 290 });
  });

  it('llama.cpp timings (merged into usage or on their own)', () => {
    expect(normalizeUsage({ prompt_n: 120, predicted_n: 45, predicted_per_second: 30 })).toMatchObject({
      promptTokens: 120,
      completionTokens: 45,
      shape: 'llamacpp',
    });
    expect(normalizeUsage({ timings: { cache_n: 80, prompt_n: 40, predicted_n: 45 } })).toMatchObject({
      promptTokens: 120,
      cachedTokens: 80,
      completionTokens: 45,
    });
  });

  it('numeric strings are accepted, junk is not', () => {
    expect(normalizeUsage({ prompt_tokens: '12', completion_tokens: '3' })).toMatchObject({
      promptTokens: 12,
      completionTokens: 3,
    });
    expect(normalizeUsage({ prompt_tokens: -5, completion_tokens: 'x' })).toMatchObject({
      promptTokens: 0,
      completionTokens: 0,
      rejected: [
        { field: 'prompt_tokens', part: 'promptTokens', value: '-5', reason: 'negative' },
        { field: 'completion_tokens', part: 'completionTokens', value: 'x', reason: 'not a number' },
      ],
    });
    expect(normalizeUsage({ cost: 0.1 })).toBeUndefined();
    expect(normalizeUsage(null)).toBeUndefined();
    expect(normalizeUsage({ prompt_tokens: 1, completion_tokens: 1, cost: -1 })?.reportedCost).toBeUndefined();
  });
});

describe('findUsage: where Open WebUI puts usage on outlet bodies', () => {
  const openai = { prompt_tokens: 10, completion_tokens: 2 };
  const body = (assistant: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    model: 'gpt-4o',
    messages: [
      { id: 'u1', role: 'user', content: 'hi' },
      { id: 'a1', role: 'assistant', content: 'hello', ...assistant },
    ],
    chat_id: 'c1',
    session_id: 's1',
    id: 'a1',
    ...extra,
  });

  it('message.usage (browser-driven outlet)', () => {
    expect(findUsage(body({ usage: openai }))?.location).toBe('message.usage');
  });
  it('message.info.usage (inline outlet, Open WebUI ≥ 0.10)', () => {
    expect(findUsage(body({ info: { usage: { input_tokens: 10, output_tokens: 2 } } }))).toMatchObject({
      location: 'message.info.usage',
      usage: { promptTokens: 10 },
    });
  });
  it('top-level usage', () => {
    expect(findUsage(body({}, { usage: openai }))?.location).toBe('body.usage');
  });
  it('legacy info fields: Ollama stats and {...usage, openai: true}', () => {
    expect(findUsage(body({ info: { prompt_eval_count: 26, eval_count: 290, total_duration: 1 } }))).toMatchObject({
      location: 'message.info',
      usage: { promptTokens: 26, completionTokens: 290 },
    });
    expect(findUsage(body({ info: { ...openai, openai: true } }))).toMatchObject({
      location: 'message.info',
      usage: { promptTokens: 10 },
    });
  });
  it('message.usage wins over info, and only the last assistant message counts', () => {
    const both = body({ usage: { prompt_tokens: 7, completion_tokens: 1 }, info: { usage: openai } });
    expect(findUsage(both)?.usage.promptTokens).toBe(7);
    const older = {
      ...both,
      messages: [
        { role: 'assistant', usage: { prompt_tokens: 99, completion_tokens: 9 } },
        { role: 'user', content: 'x' },
        { role: 'assistant', content: 'y' },
      ],
    };
    expect(findUsage(older)).toBeUndefined();
  });
  it('nothing usable: undefined', () => {
    expect(findUsage(body({ info: null, usage: null }))).toBeUndefined();
  });
});
