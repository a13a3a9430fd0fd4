import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StateStore } from '../../src/state/types.js';
import { createLedger } from '../../src/runtime/usage/ledger.js';
import type { HoldCap, HoldRequest, SpendHolds } from '../../src/domain/usage/spend-reservations.js';
import type { UsageBackend } from './helpers/ledger-fixtures.js';
import { usageRecord } from './helpers/usage-record.js';

/**
 * The store's part of shared cap scopes (a group, a model pattern; src/domain/usage/spend-scopes.ts), the same on
 * every backend: a scope's cap is checked against the scope's recorded spend + the live holds of all its members, in
 * one atomic step; a record that names the scope counts toward it (idempotent by message id); releasing or settling a
 * user's hold drops its part in each scope. Amounts from docs/accounting.md's group example (a $20 daily group cap).
 */
export function runScopeHoldsContract(name: string, open: () => Promise<UsageBackend>) {
  describe(`shared cap scopes on ${name}`, () => {
    let backend: UsageBackend;
    let store: StateStore;
    let holds: SpendHolds;
    const T = Date.UTC(2026, 10, 5, 12);
    const group: HoldCap = { period: 'd:2026-11-05', limit: '20', scope: 'g:Research' };
    const hold = (userId: string, id: string, amount: string, overrides: Partial<HoldRequest> = {}) =>
      holds.reserve({ userId, id, amount, caps: [group], now: T, expiresAt: T + 60_000, ...overrides });

    beforeEach(async () => {
      backend = await open();
      store = backend.store;
      holds = store.usage!.holds!;
    });
    afterEach(async () => backend.dispose());

    it("members share the group's cap: recorded spend of the scope + every member's holds", async () => {
      // $12 recorded for the group by two members ($7 + $5), $1 recorded by ann outside the group's scope.
      const ledger = createLedger(store);
      await ledger.record(usageRecord({ messageId: 'r1', userId: 'ann', cost: '7', time: T, scopes: ['g:Research'] }));
      await ledger.record(usageRecord({ messageId: 'r2', userId: 'bob', cost: '5', time: T, scopes: ['g:Research'] }));
      await ledger.record(usageRecord({ messageId: 'r3', userId: 'ann', cost: '1', time: T }));
      // A repeated record adds nothing to the scope either.
      await ledger.record(usageRecord({ messageId: 'r1', userId: 'ann', cost: '7', time: T, scopes: ['g:Research'] }));
      // The scope's counters (as the dashboard reads them): the day and the month; another day has nothing.
      expect(await store.usage!.scopeSpent('g:Research', 'd:2026-11-05')).toBe('12');
      expect(await ledger.scopeSpent!('g:Research', Date.UTC(2026, 10, 1), Date.UTC(2026, 11, 1))).toBe('12');
      expect(await store.usage!.scopeSpent('g:Research', 'd:2026-11-06')).toBe('0');
      expect(await ledger.spent('ann', Date.UTC(2026, 10, 5), Date.UTC(2026, 10, 6))).toBe('8');
      expect(await hold('cy', 'a', '3')).toEqual({ admitted: true, spent: ['12'], held: '3', scopeHeld: ['3'] });
      expect(await hold('ann', 'b', '4')).toEqual({ admitted: true, spent: ['12'], held: '4', scopeHeld: ['7'] });
      // scopeHeld is what the scope's members hold; spent + held leaves $1 in the group: bob's $2 does not fit, and bob holds nothing.
      expect(await hold('bob', 'c', '2')).toEqual({
        admitted: false,
        blockedBy: 0,
        spent: ['12'],
        held: '0',
        scopeHeld: ['7'],
      });
      expect(await hold('bob', 'd', '1')).toMatchObject({ admitted: true, scopeHeld: ['8'] });
      // Used up, even for $0; another group is not affected.
      expect(await hold('dee', 'e', '0')).toMatchObject({ admitted: false, blockedBy: 0 });
      expect(await hold('dee', 'f', '5', { caps: [{ ...group, scope: 'g:Sales' }] })).toMatchObject({
        admitted: true,
        scopeHeld: ['5'],
      });
    });

    it('releasing a hold (by id, by chat, the oldest request hold) drops its part in every scope; expiry too', async () => {
      const both: HoldCap[] = [group, { period: 'm:2026-11', limit: '100', scope: 'm:openai/gpt-5*' }];
      await hold('ann', 'a', '8', { caps: both });
      await hold('bob', 'req:b', '8', { caps: both, expiresAt: T + 1_000 });
      expect(await hold('cy', 'probe', '0', { caps: both })).toMatchObject({ scopeHeld: ['16', '16'] });
      expect(await holds.release('ann', ['a'])).toBe(1);
      expect(await hold('cy', 'probe', '0', { caps: both })).toMatchObject({ scopeHeld: ['8', '8'] });
      expect(await holds.release('bob', ['unknown'], { orOldestRequestHold: true })).toBe(1);
      expect(await hold('cy', 'probe', '0', { caps: both })).toMatchObject({ scopeHeld: ['0', '0'] });
      await hold('ann', 'x', '6', { caps: both, expiresAt: T + 1_000 });
      expect(await hold('cy', 'probe', '0', { caps: both, now: T + 1_000 })).toMatchObject({ scopeHeld: ['0', '0'] });
    });

    it('the user caps and the scopes are all checked: a refusal anywhere holds nothing anywhere', async () => {
      const own: HoldCap = { period: 'd:2026-11-05', limit: '2' };
      // The user's own $2 cap refuses $3: the group holds nothing.
      expect(await hold('ann', 'a', '3', { caps: [own, group] })).toMatchObject({ admitted: false, blockedBy: 0 });
      expect(await hold('cy', 'probe', '0')).toMatchObject({ scopeHeld: ['0'] });
      // The group refuses: the user's own hold is given back (a reused id keeps what it held before).
      await hold('ann', 'b', '1', { caps: [own, group] });
      await hold('bob', 'c', '19');
      expect(await hold('ann', 'b', '0.5', { caps: [own, group] })).toMatchObject({
        admitted: false,
        blockedBy: 1,
        held: '1',
      });
      expect(await hold('ann', 'probe', '0', { caps: [own] })).toMatchObject({ held: '1' });
      // A new turn of a chat settles the earlier turn's hold for the user's own caps; the scopes keep its part (each
      // member could otherwise run one request unheld, the group as many as it has members) until its reply is
      // recorded or it expires.
      await holds.release('bob', ['c']);
      const chat = (turn: string) => ({ chat: { id: 'chat-1', turn } });
      const ownAndGroup = { caps: [{ ...own, limit: '10' }, group] };
      await hold('dee', 't1', '9', { ...chat('p1'), ...ownAndGroup });
      expect(await hold('dee', 't2', '5', { ...chat('p2'), ...ownAndGroup })).toMatchObject({
        admitted: true,
        held: '5',
        scopeHeld: ['5', '15'],
      });
      expect(await hold('eve', 'e1', '6')).toMatchObject({ admitted: false, scopeHeld: ['15'] });
      // The late outlet of the first turn releases its part.
      expect(await holds.release('dee', ['t1'])).toBe(1);
      expect(await hold('eve', 'e2', '6')).toMatchObject({ admitted: true, scopeHeld: ['12'] });
    });

    it('32 concurrent holds of 8 members end within the group cap', async () => {
      const results = await Promise.all(
        Array.from({ length: 32 }, (_, index) => hold(`member-${index % 8}`, `m${index}`, '0.75')),
      );
      const admitted = results.filter((result) => result.admitted).length;
      // $20 of room, $0.75 each: 26 fit ($19.50), the 27th would pass the cap.
      expect(admitted).toBe(26);
      expect(await hold('probe', 'probe', '0')).toMatchObject({ scopeHeld: ['19.5'] });
    });
  });
}
