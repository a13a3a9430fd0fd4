import type { StateStore } from '../../../state/types.js';

/** Attempts of one compare-and-set loop before giving up (replicas writing the same index at once). */
const ATTEMPTS = 8;

/**
 * A list of ids, newest first, at most `max` long, in one store document updated by compare-and-set: replicas
 * sharing the store never lose each other's ids. `push` returns the ids it pushed out, so their documents can go.
 * Built on `get` and `compareAndSet` only, which both backends provide atomically.
 */
export async function pushCapped(
  store: Pick<StateStore, 'get' | 'compareAndSet'>,
  key: string,
  id: string,
  limits: { max: number; ttlMs: number },
): Promise<string[]> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const stored = await store.get<unknown>(key);
    const current = Array.isArray(stored) ? stored.filter((item): item is string => typeof item === 'string') : [];
    const next = [id, ...current.filter((item) => item !== id)];
    const evicted = next.splice(Math.max(0, limits.max));
    const expected = stored === undefined ? undefined : stored;
    if (await store.compareAndSet(key, expected, next, { ttlMs: limits.ttlMs })) return evicted;
  }
  throw new Error(`index ${key} kept changing: ${ATTEMPTS} attempts to add ${id}`);
}

/** The ids of a capped list, newest first (none when absent or not a list). */
export async function readCapped(store: Pick<StateStore, 'get'>, key: string): Promise<string[]> {
  const stored = await store.get<unknown>(key);
  return Array.isArray(stored) ? stored.filter((item): item is string => typeof item === 'string') : [];
}
