import type { ModelPrice } from './types.js';
import type { OpenRouterModel } from './openrouter-schema.js';
import { formatDecimal, parseDecimal } from './decimal.js';

/** Where the table in use came from. */
export type PriceTableSource = 'snapshot' | 'last-good' | 'live' | 'custom';

/** A serialisable price table: models by id plus `canonical_slug` → id aliases. */
export interface PriceTable {
  source: PriceTableSource;
  /** Epoch ms when OpenRouter produced it (fetch time; snapshot: file time). */
  fetchedAt: number;
  models: Record<string, ModelPrice>;
  aliases: Record<string, string>;
}

/** Pricing keys of OpenRouter mapped to ModelPrice fields. */
export const PRICE_KEYS = {
  prompt: 'prompt',
  completion: 'completion',
  request: 'request',
  image: 'image',
  web_search: 'webSearch',
  internal_reasoning: 'internalReasoning',
  input_cache_read: 'inputCacheRead',
  input_cache_write: 'inputCacheWrite',
  input_cache_write_1h: 'inputCacheWrite1h',
} as const satisfies Record<string, keyof ModelPrice>;

/** A USD price string, or undefined (unknown, never a negative cost) for negative (`"-1"` = dynamic), missing or malformed values. */
export function parsePrice(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const parsed = parseDecimal(value);
  if (parsed === undefined || parsed < 0n) return undefined;
  return formatDecimal(parsed);
}

/** Map one OpenRouter pricing object to ModelPrice fields (unknown keys ignored). */
export function priceFieldsOf(pricing: Record<string, unknown>): Partial<ModelPrice> {
  const fields: Partial<ModelPrice> = {};
  for (const [key, field] of Object.entries(PRICE_KEYS)) {
    const price = parsePrice(pricing[key]);
    if (price !== undefined) (fields as Record<string, string>)[field] = price;
  }
  const discount = pricing.discount;
  if (typeof discount === 'number' && Number.isFinite(discount) && discount > 0 && discount < 1)
    fields.discount = discount;
  if (Array.isArray(pricing.overrides)) {
    fields.overrides = pricing.overrides.filter(
      (entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null && !Array.isArray(entry),
    );
  }
  return fields;
}

/** True when a model id carries a variant suffix (`:free`, `:extended`, …). */
export function hasVariant(id: string): boolean {
  return /:[^/]+$/.test(id);
}

/**
 * Build a price table from parsed OpenRouter models. Ids are kept verbatim (provider prefix
 * and dots included); `canonical_slug` becomes an alias of a non-variant id
 * (never of a `:free` variant, which would price a paid model at zero).
 */
export function buildPriceTable(
  models: readonly OpenRouterModel[],
  source: PriceTableSource,
  fetchedAt: number,
): PriceTable {
  const table: PriceTable = { source, fetchedAt, models: {}, aliases: {} };
  for (const model of models) {
    const contextLength = model.context_length ?? model.top_provider?.context_length ?? undefined;
    const tokenizer = model.architecture?.tokenizer ?? undefined;
    table.models[model.id] = {
      id: model.id,
      ...priceFieldsOf(model.pricing),
      ...(contextLength ? { contextLength } : {}),
      ...(tokenizer ? { tokenizer } : {}),
    };
  }
  for (const model of models) {
    const slug = model.canonical_slug;
    if (!slug || slug === model.id || table.models[slug] || hasVariant(model.id)) continue;
    table.aliases[slug] ??= model.id;
  }
  return table;
}

/** Number of models in a table. */
export function modelCount(table: PriceTable): number {
  return Object.keys(table.models).length;
}
