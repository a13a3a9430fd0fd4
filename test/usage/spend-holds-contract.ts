import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StateStore } from '../../src/state/types.js';
import { createLedger } from '../../src/runtime/usage/ledger.js';
import type { HoldRequest, SpendHolds } from '../../src/domain/usage/spend-reservations.js';
import type { UsageBackend } from './helpers/ledger-fixtures.js';
import { usageRecord } from './helpers/usage-record.js';

/** The store's part of spend reservations, the same on both backends (real SQLite file, real Redis). */
export function runSpendHoldsContract(name: string, open: () => Promise<UsageBackend>) {
  describe(`spend holds on ${name}`, () => {
    let backend: UsageBackend;
    let store: StateStore;
    let holds: SpendHolds;
    const T = Date.UTC(2026, 10, 5, 12);
    const caps = [
      { period: 'm:2026-11', limit: '1' },
      { period: 'd:2026-11-05', limit: '0.5' },
    ];
    const hold = (id: string, amount: string, overrides: Partial<HoldRequest> = {}) =>
      holds.reserve({ userId: 'u1', id, amount, caps, now: T, expiresAt: T + 60_000, ...overrides });

    beforeEach(async () => {
      backend = await open();
      store = backend.store;
      holds = store.usage!.holds!;
    });
    afterEach(async () => backend.dispose());

    it('admits while every cap has room for recorded + held + the amount, and says where each cap stands', async () => {
      await createLedger(store).record(usageRecord({ messageId: 'r1', cost: '0.25', time: T }));
      expect(await hold('a', '0.125')).toEqual({ admitted: true, spent: ['0.25', '0.25'], held: '0.125' });
      // The daily cap ($0.50) has $0.125 left: $0.2 does not fit there; nothing is held.
      expect(await hold('b', '0.2')).toEqual({ admitted: false, blockedBy: 1, spent: ['0.25', '0.25'], held: '0.125' });
      expect(await hold('c', '0.125')).toMatchObject({ admitted: true, held: '0.25' });
      // Recorded + held = the cap: used up, even for an estimate of $0.
      expect(await hold('d', '0')).toMatchObject({ admitted: false, blockedBy: 1 });
      // Other users are not affected.
      expect(await hold('e', '0.4', { userId: 'u2' })).toMatchObject({ admitted: true, held: '0.4' });
    });

    it('the same id again adds to its hold (a reused id frees no room); amounts are whole nano-dollars, rounded up', async () => {
      const wide = { caps: [{ period: 'm:2026-11', limit: '10' }] };
      await hold('a', '0.3', wide);
      expect(await hold('a', '0.2', { ...wide, expiresAt: T + 1_000 })).toMatchObject({ admitted: true, held: '0.5' });
      expect(await hold('tiny', '0.0000000001', wide)).toMatchObject({ held: '0.500000001' });
      // The reused id keeps its later expiry (T + 60 s), and goes as one when released.
      expect(await hold('probe', '0', { ...wide, now: T + 1_000 })).toMatchObject({ held: '0.500000001' });
      expect(await holds.release('u1', ['a'])).toBe(1);
      expect(await hold('probe', '0', wide)).toMatchObject({ held: '0.000000001' });
    });

    it('expired holds no longer count; release by id, or the oldest request hold when none matches', async () => {
      await hold('req:old', '0.1', { expiresAt: T + 1_000 });
      await hold('req:new', '0.1', { expiresAt: T + 2_000 });
      await hold('msg-1', '0.1', { expiresAt: T + 500 });
      expect(await hold('probe', '0')).toMatchObject({ held: '0.3' });
      expect(await hold('probe', '0', { now: T + 500 })).toMatchObject({ held: '0.2' }); // msg-1 expired
      expect(await holds.release('u1', ['unknown'])).toBe(0);
      expect(await holds.release('u1', ['unknown'], { orOldestRequestHold: true })).toBe(1); // req:old
      expect(await hold('probe', '0')).toMatchObject({ held: '0.1' });
      expect(await holds.release('u1', ['req:new', 'probe'])).toBe(2);
      expect(await hold('probe', '0')).toMatchObject({ held: '0' });
    });
  });
}
