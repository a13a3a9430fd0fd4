import { describe, expect, it } from 'vitest';
import { resolveModelId, baseModelIdOf } from '../../src/domain/pricing/resolve-model-id.js';
import { ModelIndex } from '../../src/domain/pricing/model-index.js';
import { buildPriceTable } from '../../src/domain/pricing/price-table.js';
import { parseModelList } from '../../src/domain/pricing/openrouter-schema.js';
import { createPricingLookup } from '../../src/domain/pricing/pricing-lookup.js';
import { CAPTURE } from './helpers/openrouter-server.js';

const table = buildPriceTable(parseModelList(CAPTURE)!.models, 'snapshot', 0);
const index = new ModelIndex(table.models, table.aliases);
const resolve = (id: string) => resolveModelId(id, index);

describe('model id normalisation against the real capture', () => {
  it('provider-prefixed and bare ids both resolve', () => {
    expect(resolve('openai/gpt-4o')).toBe('openai/gpt-4o');
    expect(resolve('gpt-4o')).toBe('openai/gpt-4o');
    expect(resolve('OpenAI/GPT-4o')).toBe('openai/gpt-4o');
  });

  it('dots inside ids are preserved', () => {
    expect(resolve('gpt-4.1')).toBe('openai/gpt-4.1');
    expect(resolve('gemini-2.5-pro')).toBe('google/gemini-2.5-pro');
    expect(resolve('claude-3.5-sonnet')).toBe('anthropic/claude-3.5-sonnet');
    expect(resolve('openai/gpt-4.1-mini')).toBe('openai/gpt-4.1-mini');
    expect(resolve('llama3.2:3b')).toBeUndefined();
  });

  it('a known connection prefix is stripped and the provider id resolves', () => {
    expect(resolve('openrouter.openai/gpt-4o')).toBe('openai/gpt-4o');
    expect(resolve('openai.gpt-4.1')).toBe('openai/gpt-4.1');
    expect(resolve('mycorp.gpt-4o')).toBeUndefined();
    expect(resolveModelId('mycorp.gpt-4o', new ModelIndex(table.models, table.aliases, ['mycorp']))).toBe(
      'openai/gpt-4o',
    );
  });

  it('a foreign provider path segment is dropped when the rest resolves', () => {
    expect(resolve('openrouter/openai/gpt-4o')).toBe('openai/gpt-4o');
  });

  it('variants: an existing :free id is itself; an absent variant falls back to the base id', () => {
    expect(resolve('meta-llama/llama-3.2-3b-instruct:free')).toBe('meta-llama/llama-3.2-3b-instruct:free');
    expect(resolve('openai/gpt-4o:extended')).toBe('openai/gpt-4o:extended');
    expect(resolve('openai/gpt-4.1:beta')).toBe('openai/gpt-4.1');
  });

  it('dated ids: present ones are priced separately, absent ones fall back to the base', () => {
    expect(resolve('openai/gpt-4o-2024-05-13')).toBe('openai/gpt-4o-2024-05-13');
    expect(table.models['openai/gpt-4o-2024-05-13']!.prompt).not.toBe(table.models['openai/gpt-4o']!.prompt);
    expect(resolve('gpt-4.1-2025-04-14')).toBe('openai/gpt-4.1');
    expect(resolve('anthropic/claude-3.5-sonnet-20241022')).toBe('anthropic/claude-3.5-sonnet');
  });

  it('canonical_slug maps to id, never to a :free variant', () => {
    expect(resolve('anthropic/claude-4.5-opus-20251124')).toBe('anthropic/claude-opus-4.5');
    expect(resolve('deepseek/deepseek-v3.2-20251201')).toBe('deepseek/deepseek-v3.2');
    expect(table.aliases['amazon/nova-2-lite-v1']).toBeUndefined();
  });

  it.each([
    ['claude-3-5-sonnet', 'anthropic/claude-3.5-sonnet'],
    ['claude-3-5-sonnet-20241022', 'anthropic/claude-3.5-sonnet'],
    ['claude-3-7-sonnet', 'anthropic/claude-3.7-sonnet'],
    ['anthropic/claude-sonnet-4-5', 'anthropic/claude-sonnet-4.5'],
    ['claude-haiku-4-5-20251001', 'anthropic/claude-haiku-4.5'],
  ])("Anthropic's hyphenated version %s resolves to %s", (id, expected) => {
    expect(resolve(id)).toBe(expected);
  });

  it('hyphen-to-dot never applies to multi-digit parts', () => {
    expect(resolve('gpt-4-0613')).not.toBe('openai/gpt-4.0613');
  });

  it('unknown ids stay unknown', () => {
    expect(resolve('no-such-model')).toBeUndefined();
    expect(resolve('')).toBeUndefined();
  });
});

describe('workspace models', () => {
  const lookup = createPricingLookup(() => index);
  it('resolve through the base model id from metadata or model_item', () => {
    const chatBody = { model: 'my-assistant', metadata: { model: { info: { base_model_id: 'gpt-4o' } } } };
    const outletBody = {
      model: 'my-assistant',
      model_item: { id: 'my-assistant', info: { base_model_id: 'openai/gpt-4.1' } },
    };
    expect(baseModelIdOf(chatBody)).toBe('gpt-4o');
    expect(baseModelIdOf(outletBody)).toBe('openai/gpt-4.1');
    expect(baseModelIdOf({ model_item: { info: { base_model_id: null } } })).toBeUndefined();
    expect(lookup.resolve('my-assistant', { baseModelId: baseModelIdOf(chatBody) })?.id).toBe('openai/gpt-4o');
    expect(lookup.resolve('my-assistant')).toBeUndefined();
  });

  it('contextLength and estimateCost answer for resolved ids', () => {
    expect(lookup.contextLength('gpt-4o')).toBe(128000);
    expect(lookup.estimateCost('gpt-4o', { promptTokens: 1_000_000 })).toBe('2.5');
    expect(lookup.estimateCost('openrouter/auto', { promptTokens: 10 })).toBeUndefined();
  });
});
