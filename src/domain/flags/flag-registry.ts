import { ConfigError } from '../../core/errors/index.js';
import { builtinFlags } from './builtin-flags.js';
import type { FlagSpec } from './types.js';

/** Owner of the built-in flags in `FlagRegistry.owner()`. */
export const BUILTIN_OWNER = 'builtin';

/** A flag spec with the filter that registered it (`builtin` for the host's own). */
export type RegisteredFlag = FlagSpec & { readonly owner: string };

const VALID_KEY = /^[a-z_][\w.-]*$/;

/**
 * The flags the `!flag` grammar recognises: the built-ins plus those filters declare with
 * `defineFilter({ flags })`. `register` replaces a filter's previous set (hot reload).
 */
export class FlagRegistry {
  private readonly byKey = new Map<string, RegisteredFlag>();

  constructor(builtins: readonly FlagSpec[] = builtinFlags) {
    for (const spec of builtins)
      this.byKey.set(spec.key.toLowerCase(), { ...spec, key: spec.key.toLowerCase(), owner: BUILTIN_OWNER });
  }

  /** Register (or replace) a filter's flags; throws ConfigError on a bad key or a key another owner has. */
  register(filterId: string, specs: readonly FlagSpec[]): void {
    if (filterId === BUILTIN_OWNER)
      throw new ConfigError(`A filter cannot be called "${BUILTIN_OWNER}" when it registers flags`);
    const incoming = new Map<string, RegisteredFlag>();
    for (const spec of specs) {
      const key = spec.key.toLowerCase();
      if (!VALID_KEY.test(key))
        throw new ConfigError(
          `Filter ${filterId}: flag key "${spec.key}" is not valid (letters, digits, _ . -; starts with a letter or _)`,
        );
      const holder = this.byKey.get(key);
      if (holder && holder.owner !== filterId)
        throw new ConfigError(`Filter ${filterId}: flag "${key}" is already registered by ${holder.owner}`);
      if (incoming.has(key)) throw new ConfigError(`Filter ${filterId}: flag "${key}" is declared twice`);
      incoming.set(key, { ...spec, key, owner: filterId });
    }
    this.unregister(filterId);
    for (const [key, spec] of incoming) this.byKey.set(key, spec);
  }

  /** Remove every flag a filter registered (unload / before reload). Built-ins cannot be removed. */
  unregister(filterId: string): void {
    if (filterId === BUILTIN_OWNER) return;
    for (const [key, spec] of this.byKey) if (spec.owner === filterId) this.byKey.delete(key);
  }

  /** The spec of `key` (case-insensitive), or undefined when nobody registered it. */
  get(key: string): RegisteredFlag | undefined {
    return this.byKey.get(key.toLowerCase());
  }

  /** True when `key` is a known flag. */
  has(key: string): boolean {
    return this.byKey.has(key.toLowerCase());
  }

  /** Every known flag, built-ins first, then in registration order. */
  list(): RegisteredFlag[] {
    return [...this.byKey.values()];
  }
}
