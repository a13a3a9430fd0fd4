import { createHash } from 'node:crypto';
import type { StateStore } from '../../state/types.js';
import { USAGE_LINE_PATTERN } from '../../domain/usage/format-usage-line.js';
import { stripContextNotes } from '../../domain/engine/context-note.js';

/** Who accounts a proxied reply: the proxy pipe (when the reply ends) or the accounting filter's outlet. */
export type ReplySide = 'proxy' | 'outlet';

/**
 * Pairs the two accountings of one proxied reply, so the ledger gets it once whichever comes first.
 * Both sides name the reply by `replyFingerprint(user id, model id, reply text)`.
 */
export interface ReplyClaims {
  /** `side` is about to record the reply: true when the other side already recorded it (record nothing). */
  claim(fingerprint: string, side: ReplySide): Promise<boolean>;
}

/** How long one side's record waits for the other side's (an outlet comes seconds after the stream). */
export const REPLY_CLAIM_TTL_MS = 60 * 60 * 1000;

/**
 * sha256 of user id, model id and the reply's text without the lines Eunoe's outlets append
 * (usage line, context note) and surrounding blanks: the proxy and the outlet compute the same.
 */
export function replyFingerprint(userId: string, model: string, text: string): string {
  const withoutUsage = text.replace(USAGE_LINE_PATTERN, '');
  const [reply] = stripContextNotes([{ role: 'assistant', content: withoutUsage }]);
  const canonical = typeof reply?.content === 'string' ? reply.content : withoutUsage;
  return createHash('sha256').update(`${userId}\n${model}\n${canonical.trim()}`).digest('hex');
}

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
