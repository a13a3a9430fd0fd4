import { buildPriceTable } from '../../src/domain/pricing/price-table.js';
import { parseModelList } from '../../src/domain/pricing/openrouter-schema.js';
import { ModelIndex } from '../../src/domain/pricing/model-index.js';

/** A small OpenRouter model list: priced models plus a free variant, a "-1" router, overrides and a sparse entry. */
export const DOC_FIXTURE = {
  data: [
    {
      id: 'openai/gpt-4o',
      canonical_slug: 'openai/gpt-4o',
      name: 'OpenAI: GPT-4o',
      created: 1715558400,
      context_length: 128000,
      architecture: { modality: 'text+image->text', tokenizer: 'GPT', instruct_type: null },
      pricing: {
        prompt: '0.0000025',
        completion: '0.00001',
        request: '0',
        image: '0.003613',
        web_search: '0',
        internal_reasoning: '0',
        input_cache_read: '0.00000125',
      },
      top_provider: { context_length: 128000, max_completion_tokens: 16384, is_moderated: true },
    },
    {
      id: 'anthropic/claude-3.5-sonnet',
      canonical_slug: 'anthropic/claude-3.5-sonnet',
      context_length: 200000,
      architecture: { tokenizer: 'Claude' },
      pricing: {
        prompt: '0.000003',
        completion: '0.000015',
        request: '0',
        image: '0.0048',
        web_search: '0',
        internal_reasoning: '0',
        input_cache_read: '0.0000003',
        input_cache_write: '0.00000375',
      },
    },
    {
      id: 'meta-llama/llama-3.2-3b-instruct:free',
      canonical_slug: 'meta-llama/llama-3.2-3b-instruct',
      context_length: 131072,
      pricing: { prompt: '0', completion: '0' },
    },
    {
      id: 'openrouter/auto',
      canonical_slug: 'openrouter/auto',
      context_length: 2000000,
      pricing: { prompt: '-1', completion: '-1' },
    },
    {
      id: 'example/long-context',
      canonical_slug: 'example/long-context-20250101',
      context_length: 1000000,
      pricing: {
        prompt: '0.0000025',
        completion: '0.00001',
        overrides: [{ min_prompt_tokens: 200000, prompt: '0.000005', completion: '0.00002' }],
      },
    },
    { id: 'example/sparse', canonical_slug: 'example/sparse', pricing: { prompt: '0.000001' } },
  ],
};

/** The fixture as a ModelIndex. */
export function docIndex(): ModelIndex {
  const table = buildPriceTable(parseModelList(DOC_FIXTURE)!.models, 'snapshot', 0);
  return new ModelIndex(table.models, table.aliases);
}
