import { promises as fs } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../../core/errors/index.js';
import type { ModelPrice } from './types.js';
import { parseModelList } from './openrouter-schema.js';
import { buildPriceTable, priceFieldsOf } from './price-table.js';
import { errorMessage } from '../../core/util/error-message.js';

const entrySchema = z.looseObject({
  context_length: z.number().int().positive().optional(),
  tokenizer: z.string().optional(),
});

async function readJson(file: string, variable: string): Promise<unknown> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${variable}: cannot read ${file} as JSON (${errorMessage(error)})`, { cause: error });
  }
}

/**
 * Load CUSTOM_PRICING_FILE: either an OpenRouter `/models` capture (`{"data": [...]}`) or a map
 * `{"<model id>": {"prompt": "0.000001", "completion": "0.000002", "context_length": 8192, ...}}`
 * using OpenRouter's pricing keys. Entries override or extend the table. Throws ConfigError.
 */
export async function loadCustomPricing(file: string): Promise<Record<string, Partial<ModelPrice> & { id: string }>> {
  const json = await readJson(file, 'CUSTOM_PRICING_FILE');
  const list = parseModelList(json);
  if (list) return buildPriceTable(list.models, 'custom', Date.now()).models;
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ConfigError(`CUSTOM_PRICING_FILE: ${file} must be an object of model id → prices, or {"data": [...]}`);
  }
  const result: Record<string, Partial<ModelPrice> & { id: string }> = {};
  for (const [id, value] of Object.entries(json)) {
    const entry = entrySchema.safeParse(value);
    if (!entry.success) throw new ConfigError(`CUSTOM_PRICING_FILE: entry "${id}" in ${file} must be an object`);
    const { context_length: contextLength, tokenizer, ...pricing } = entry.data;
    result[id] = {
      id,
      ...priceFieldsOf(pricing),
      ...(contextLength ? { contextLength } : {}),
      ...(tokenizer ? { tokenizer } : {}),
    };
  }
  return result;
}

/** Load MODEL_ALIASES_FILE: `{"alias": "table id"}`. Throws ConfigError. */
export async function loadModelAliases(file: string): Promise<Record<string, string>> {
  const parsed = z.record(z.string(), z.string().min(1)).safeParse(await readJson(file, 'MODEL_ALIASES_FILE'));
  if (!parsed.success)
    throw new ConfigError(`MODEL_ALIASES_FILE: ${file} must be an object of alias → model id strings`);
  return parsed.data;
}
