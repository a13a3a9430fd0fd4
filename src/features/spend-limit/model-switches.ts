/**
 * The spend-limit inlet's model switches (ModelSwitches, provided as `modelSwitchesService`): by message id for the
 * accounting outlet, and per user and served model for Eunoe's openai-proxy, whose requests carry no message id.
 */
import type { StateStore } from '../../state/types.js';
import { SWITCH_CLAIM_MS, type ModelSwitch, type ModelSwitches } from '../../runtime/host/shipped-service-keys.js';

/** Where a model switch is kept by message id, and for how long: a reply's outlet comes within minutes. */
const SWITCH_PREFIX = 'spend-limit:switch:';
const SWITCH_TTL_MS = 86_400_000;
/** The unclaimed switches of one user to one served model, oldest first: at most this many, for `SWITCH_CLAIM_MS`. */
const PENDING_PREFIX = 'spend-limit:switch-pending:';
const PENDING_MAX = 20;
/** Compare-and-set rounds before giving up on a busy list (each round is one read and one write). */
const ROUNDS = 8;

interface Pending {
  requested: string;
  messageId: string;
  at: number;
}

const pendingKey = (userId: string, served: string) => `${PENDING_PREFIX}${userId}:${served}`;

/**
 * Change the unclaimed list of `key` with `change` (given its live entries; undefined = no change), atomically by
 * compare-and-set; the value `change` chose once it is written, or undefined.
 */
async function updatePending<T>(
  store: StateStore,
  key: string,
  change: (live: Pending[]) => { next: Pending[]; result: T } | undefined,
): Promise<T | undefined> {
  for (let round = 0; round < ROUNDS; round++) {
    const current = await store.get<Pending[]>(key);
    const now = Date.now();
    const live = (Array.isArray(current) ? current : []).filter((entry) => entry.at > now - SWITCH_CLAIM_MS);
    const changed = change(live);
    if (!changed) return undefined;
    if (await store.compareAndSet(key, current, changed.next, { ttlMs: SWITCH_CLAIM_MS })) return changed.result;
  }
  return undefined;
}

export function modelSwitches(store: StateStore): ModelSwitches {
  const find = (messageId: string) => store.get<ModelSwitch>(`${SWITCH_PREFIX}${messageId}`);
  return {
    async record(messageId, change, userId) {
      await store.set(`${SWITCH_PREFIX}${messageId}`, change, { ttlMs: SWITCH_TTL_MS });
      if (!userId) return;
      const entry: Pending = { requested: change.requested, messageId, at: Date.now() };
      await updatePending(store, pendingKey(userId, change.served), (live) => ({
        next: [...live, entry].slice(-PENDING_MAX),
        result: true,
      }));
    },
    find,
    async claimServed(userId, served, messageId) {
      const key = pendingKey(userId, served);
      const known = messageId ? await find(messageId) : undefined;
      if (known && known.served === served) {
        // The reply names its message: that switch, and it is no longer unclaimed.
        await updatePending(store, key, (live) =>
          live.some((entry) => entry.messageId === messageId)
            ? { next: live.filter((entry) => entry.messageId !== messageId), result: true }
            : undefined,
        );
        return known;
      }
      return updatePending(store, key, (live) =>
        live.length > 0 ? { next: live.slice(1), result: { requested: live[0]!.requested, served } } : undefined,
      );
    },
  };
}
