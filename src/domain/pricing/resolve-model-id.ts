import type { ModelIndex } from './model-index.js';

const VARIANT = /:[A-Za-z0-9._-]+$/;
const DATED = /-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4})$/;
/** Anthropic's API spells versions with a hyphen (`claude-3-5-sonnet`, `claude-sonnet-4-5`); OpenRouter with a dot. */
const HYPHEN_VERSION = /(?<=-)(\d)-(\d)(?=-|$)/g;

/**
 * Resolve a model id as Open WebUI sends it to a price-table id, or undefined.
 * Order: exact / alias / case-insensitive; an alias's target resolved by these same rules; provider prefix added (`gpt-4o` → `openai/gpt-4o`);
 * a known connection prefix stripped (`openrouter.openai/gpt-4o`, only when the rest
 * resolves); a foreign leading path segment dropped (`openrouter/openai/gpt-4o`, `azure/gpt-4o`);
 * the variant suffix dropped (`:free`), then a date suffix (`-2024-08-06`); last, Anthropic's hyphenated
 * versions read with a dot (`claude-3-5-sonnet-20241022` → `claude-3.5-sonnet`).
 * Dots inside ids are never touched (`gpt-4.1`, `gemini-2.5-pro`).
 */
export function resolveModelId(raw: string, index: ModelIndex, depth = 0): string | undefined {
  const id = raw.trim();
  if (!id || depth > 4) return undefined;
  const found = index.direct(id) ?? index.withProvider(id);
  if (found) return found;
  // An alias whose target is not a table id as written (`"acme-assistant": "gpt-4o"`): the target resolved like any id.
  const target = index.aliasTarget(id);
  if (target !== undefined && target !== id) {
    const aliased = resolveModelId(target, index, depth + 1);
    if (aliased) return aliased;
  }
  const dot = id.indexOf('.');
  if (dot > 0 && index.connectionPrefixes.includes(id.slice(0, dot).toLowerCase())) {
    const rest = resolveModelId(id.slice(dot + 1), index, depth + 1);
    if (rest) return rest;
  }
  const slash = id.indexOf('/');
  if (slash > 0) {
    const rest = resolveModelId(id.slice(slash + 1), index, depth + 1);
    if (rest) return rest;
  }
  if (VARIANT.test(id)) {
    const rest = resolveModelId(id.replace(VARIANT, ''), index, depth + 1);
    if (rest) return rest;
  }
  if (DATED.test(id)) {
    const rest = resolveModelId(id.replace(DATED, ''), index, depth + 1);
    if (rest) return rest;
  }
  const dotted = id.replace(HYPHEN_VERSION, '$1.$2');
  if (dotted !== id) return resolveModelId(dotted, index, depth + 1);
  return undefined;
}

/** The workspace model's base id from an Open WebUI body (`metadata.model.info.base_model_id`, `model_item.info.base_model_id`). */
export function baseModelIdOf(body: Record<string, unknown>): string | undefined {
  const pick = (value: unknown): string | undefined => {
    const info = (value as { info?: { base_model_id?: unknown } } | undefined)?.info;
    return typeof info?.base_model_id === 'string' && info.base_model_id ? info.base_model_id : undefined;
  };
  const metadata = body.metadata as { model?: unknown } | undefined;
  return pick(metadata?.model) ?? pick(body.model_item);
}
