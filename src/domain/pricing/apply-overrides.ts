import type { ModelPrice } from './types.js';
import { PRICE_KEYS, parsePrice } from './price-table.js';

/** Conditions a request is checked against. */
export interface OverrideContext {
  promptTokens: number;
  /** Epoch ms of the request (time windows are UTC). */
  at: number;
}

function hhmm(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\d{1,4}$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 0 || number > 2400 || number % 100 >= 60)
    return undefined;
  return Math.floor(number / 100) * 60 + (number % 100);
}

/** True when minute-of-day `now` lies in the half-open window [start, end), which may wrap midnight. */
export function inUtcWindow(start: number, end: number, now: number): boolean {
  if (start === end) return false;
  return start < end ? now >= start && now < end : now >= start || now < end;
}

/**
 * Whether one override entry applies: every condition it carries must match —
 * `min_prompt_tokens` strictly exceeded, `utc_start`/`utc_end` HHMM window. An entry
 * with a malformed condition never applies.
 */
export function overrideApplies(entry: Record<string, unknown>, context: OverrideContext): boolean {
  if ('min_prompt_tokens' in entry) {
    const minimum = entry.min_prompt_tokens;
    if (typeof minimum !== 'number' || !Number.isFinite(minimum)) return false;
    if (!(context.promptTokens > minimum)) return false;
  }
  if ('utc_start' in entry || 'utc_end' in entry) {
    const start = hhmm(entry.utc_start);
    const end = hhmm(entry.utc_end);
    if (start === undefined || end === undefined) return false;
    const date = new Date(context.at);
    if (!inUtcWindow(start, end, date.getUTCHours() * 60 + date.getUTCMinutes())) return false;
  }
  return true;
}

/**
 * The price in force for one request: the base price with every applicable override laid
 * over it in order (later entries win key by key; keys an entry omits inherit). The tier is
 * chosen once for the whole request, not per token above the threshold.
 */
export function applyOverrides(price: ModelPrice, context: OverrideContext): ModelPrice {
  if (!price.overrides?.length) return price;
  const effective: ModelPrice = { ...price };
  for (const entry of price.overrides) {
    if (!overrideApplies(entry, context)) continue;
    for (const [key, field] of Object.entries(PRICE_KEYS)) {
      if (!(key in entry)) continue;
      const value = parsePrice(entry[key]);
      if (value === undefined) delete effective[field];
      else effective[field] = value;
    }
    if (typeof entry.discount === 'number' && entry.discount >= 0 && entry.discount < 1)
      effective.discount = entry.discount;
  }
  return effective;
}
