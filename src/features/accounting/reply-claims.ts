import type { StateStore } from '../../state/types.js';
import type { ReplyClaims, ReplySide } from '../../runtime/host/shipped-service-keys.js';

/** How long one side's record waits for the other side's (an outlet comes seconds after the stream). */
export const REPLY_CLAIM_TTL_MS = 60 * 60 * 1000;

interface Counts {
  proxy: number;
  outlet: number;
}

/**
 * Claims kept in the state store (shared by replicas): per fingerprint, how many replies each side
 * recorded that the other has not matched yet. A side first consumes one of the other's; else it
 * adds its own. Updated with compare-and-set, so a proxy and an outlet racing on one reply pair up.
 */
export function createReplyClaims(store: StateStore, ttlMs = REPLY_CLAIM_TTL_MS): ReplyClaims {
  return {
    async claim(fingerprint, side) {
      const key = `reply-claim:${fingerprint}`;
      const other: ReplySide = side === 'proxy' ? 'outlet' : 'proxy';
      for (let attempt = 0; attempt < 16; attempt += 1) {
        const current = await store.get<Counts>(key);
        const counts: Counts = { proxy: current?.proxy ?? 0, outlet: current?.outlet ?? 0 };
        const matched = counts[other] > 0;
        const next = { ...counts, [matched ? other : side]: counts[matched ? other : side] + (matched ? -1 : 1) };
        if (await store.compareAndSet(key, current, next, { ttlMs })) return matched;
      }
      return false; // Contended beyond reason: record (a possible double count beats a lost one).
    },
  };
}
