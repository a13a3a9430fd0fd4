import type { ModelPrice } from './types.js';

/** Open WebUI connection prefixes stripped by default (`openrouter.openai/gpt-4o`); configurable. */
export const DEFAULT_CONNECTION_PREFIXES = [
  'openrouter',
  'openai',
  'anthropic',
  'ollama',
  'litellm',
  'azure',
  'groq',
  'together',
  'poe',
];

/** Lookup structure over the merged price table: ids, aliases, lower-case and provider-less indexes. */
export class ModelIndex {
  private readonly lower = new Map<string, string>();
  private readonly bare = new Map<string, string>();

  constructor(
    readonly models: Readonly<Record<string, ModelPrice>>,
    /** canonical slugs and user aliases → id (user aliases win). */
    readonly aliases: Readonly<Record<string, string>>,
    readonly connectionPrefixes: readonly string[] = DEFAULT_CONNECTION_PREFIXES,
  ) {
    for (const id of Object.keys(models)) {
      if (!this.lower.has(id.toLowerCase())) this.lower.set(id.toLowerCase(), id);
      const slash = id.indexOf('/');
      // Provider-less form (`gpt-4o` → `openai/gpt-4o`); the first provider listed wins.
      if (slash > 0) {
        const rest = id.slice(slash + 1).toLowerCase();
        if (!this.bare.has(rest)) this.bare.set(rest, id);
      }
    }
    for (const alias of Object.keys(aliases)) {
      if (!this.lower.has(alias.toLowerCase())) this.lower.set(alias.toLowerCase(), alias);
    }
  }

  /** Exact or case-insensitive hit, following one alias hop; undefined otherwise. */
  direct(id: string): string | undefined {
    const key = this.models[id] || this.aliases[id] ? id : this.lower.get(id.toLowerCase());
    if (key === undefined) return undefined;
    const target = this.aliases[key] ?? key;
    if (this.models[target]) return target;
    const folded = this.lower.get(target.toLowerCase());
    return folded !== undefined && this.models[folded] ? folded : undefined;
  }

  /** What an alias (exact or case-insensitive) points to, as written; undefined for an id that is not an alias. */
  aliasTarget(id: string): string | undefined {
    const key = this.aliases[id] !== undefined ? id : this.lower.get(id.toLowerCase());
    return key === undefined ? undefined : this.aliases[key];
  }

  /** An id with its provider prefix added, when exactly the provider-less form is known. */
  withProvider(id: string): string | undefined {
    return id.includes('/') ? undefined : this.bare.get(id.toLowerCase());
  }

  /** Number of priced models. */
  get size(): number {
    return Object.keys(this.models).length;
  }
}
