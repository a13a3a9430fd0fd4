import type { StateStore } from '../../state/types.js';
import type { TokenCorrections } from '../../domain/usage/types.js';

/** Lower bound of a correction ratio. */
export const CORRECTION_MIN = 0.5;
/** Upper bound of a correction ratio. */
export const CORRECTION_MAX = 2;
/** EMA weight of a new observation. */
export const CORRECTION_ALPHA = 0.2;

const clamp = (value: number) => Math.min(CORRECTION_MAX, Math.max(CORRECTION_MIN, value));
const key = (model: string) => `corrections:${model}`;

/**
 * Per-model ratio actual/estimated prompt tokens as an exponential moving average clamped to
 * [0.5, 2], kept in the store (compare-and-set, so concurrent replicas do not lose updates).
 */
export function createTokenCorrections(store: StateStore, options: { alpha?: number } = {}): TokenCorrections {
  const alpha = options.alpha ?? CORRECTION_ALPHA;
  return {
    async get(model) {
      const value = await store.get(key(model));
      return typeof value === 'number' && Number.isFinite(value) ? clamp(value) : undefined;
    },
    async observe(model, estimated, actual) {
      if (!(estimated > 0) || !(actual > 0)) return (await this.get(model)) ?? 1;
      const ratio = clamp(actual / estimated);
      for (let attempt = 0; attempt < 5; attempt++) {
        const previous = await store.get(key(model));
        const next =
          typeof previous === 'number' && Number.isFinite(previous)
            ? clamp(previous + alpha * (ratio - previous))
            : ratio;
        if (await store.compareAndSet(key(model), previous, next)) return next;
      }
      return (await this.get(model)) ?? ratio;
    },
  };
}
