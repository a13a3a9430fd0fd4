/** Encodings the engine can load. */
export type EncodingName = 'o200k_base' | 'cl100k_base';

/** The encoding used for models of unknown families (Claude, Llama, Gemini, …): an estimate. */
export const FALLBACK_ENCODING: EncodingName = 'o200k_base';

const O200K = [
  /^gpt-4o/,
  /^chatgpt-4o/,
  /^gpt-4\.1/,
  /^gpt-4\.5/,
  /^gpt-5/,
  /^o[1-9](-|$)/,
  /^gpt-oss/,
  /^gpt-image/,
  /^codex-/,
];
const CL100K = [/^gpt-4(-|$)/, /^gpt-4-/, /^gpt-3\.5/, /^gpt-35/, /^text-embedding-(ada-002|3)/];

/** Model id without provider or connection prefixes: `openrouter.openai/gpt-4o` → `gpt-4o`. */
export function bareModelId(model: string): string {
  const slash = model.lastIndexOf('/');
  return (slash >= 0 ? model.slice(slash + 1) : model).trim().toLowerCase();
}

/**
 * The tiktoken encoding for a model: o200k_base for the GPT-4o/4.1/4.5/5/o-series family,
 * cl100k_base for GPT-4 and GPT-3.5; `exact: false` means the documented fallback (o200k_base).
 */
export function encodingForModel(model: string | undefined): { encoding: EncodingName; exact: boolean } {
  if (!model) return { encoding: FALLBACK_ENCODING, exact: false };
  const bare = bareModelId(model);
  if (O200K.some((pattern) => pattern.test(bare))) return { encoding: 'o200k_base', exact: true };
  if (CL100K.some((pattern) => pattern.test(bare))) return { encoding: 'cl100k_base', exact: true };
  return { encoding: FALLBACK_ENCODING, exact: false };
}
