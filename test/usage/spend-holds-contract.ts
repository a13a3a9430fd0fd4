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

    // Open WebUI's chat page (src/lib/components/chat/Chat.svelte, sendMessage / sendMessageSocket) sends one request
    // per selected model at once (Promise.all), each with its own assistant message id (`id`) and the same user
    // message as `parent_id` (metadata.parent_message_id); a regenerated reply is a new id with the same parent.
    const wide = { caps: [{ period: 'm:2026-11', limit: '10' }] };
    const inChat = (chat: string, turn: string) => ({ ...wide, chat: { id: chat, turn } });
    const held = async () => (await hold('probe', '0', wide)).held;

    it("a chat's next turn settles that chat's oldest hold of another turn; holds of one turn stay", async () => {
      await hold('a', '0.1', inChat('c1', 'q1'));
      await hold('b', '0.2', inChat('c1', 'q1')); // the same turn (another model, or a burst): both in flight
      expect(await held()).toBe('0.3');
      await hold('x', '0.4', inChat('c2', 'q1')); // another chat
      await hold('req:1', '0.8', wide); // a caller without a chat
      expect(await held()).toBe('1.5');
      // A third request of the same turn ends none of them.
      expect(await hold('c', '0.1', inChat('c1', 'q1'))).toMatchObject({ admitted: true, held: '1.6' });
      // The next turn of c1 ends one request of the earlier turn (the oldest: a); c2's and the chat-less hold stay.
      expect(await hold('n', '0.05', inChat('c1', 'q2'))).toMatchObject({ admitted: true, held: '1.55' });
      // Until a's reply is recorded (or a expires), no turn ends another hold: at most one request runs unheld.
      expect(await hold('n2', '0.05', inChat('c1', 'q3'))).toMatchObject({ admitted: true, held: '1.6' });
      expect(await hold('y', '0.05', inChat('c2', 'q2'))).toMatchObject({ admitted: true, held: '1.65' });
      // The late outlet of a releases its $0 hold by id, and nothing else (not another hold of c1, not req:1).
      expect(await holds.release('u1', ['a'], { orChat: 'c1', orOldestRequestHold: true })).toBe(1);
      expect(await held()).toBe('1.65');
      // Then the next turn of c2 ends c2's oldest hold of another turn (x), one only.
      expect(await hold('z', '0.05', inChat('c2', 'q3'))).toMatchObject({ admitted: true, held: '1.3' });
      // The same id again (a continued reply) is a request in flight again, and is not ended by itself.
      expect(await hold('x', '0.1', inChat('c2', 'q1'))).toMatchObject({ held: '1.4' });
      // A request that is refused still ends the earlier turn's oldest hold: its reply is over.
      await holds.release('u1', ['x']);
      const tight = { caps: [{ period: 'm:2026-11', limit: '1.2' }], chat: { id: 'c1', turn: 'q4' } };
      expect(await hold('t', '0.5', tight)).toMatchObject({ admitted: false, held: '1.1' }); // b ended
      // Expired, an ended hold goes like any other.
      expect(await hold('probe', '0', { ...wide, now: T + 60_000 })).toMatchObject({ held: '0' });
      expect(await holds.release('u1', ['b'])).toBe(0);
    });

    it("a reply of a chat whose message id holds nothing settles that chat's oldest hold, before a request hold", async () => {
      await hold('a', '0.1', inChat('c1', 'q1'));
      await hold('b', '0.2', inChat('c1', 'q1'));
      await hold('x', '0.4', inChat('c2', 'q1'));
      await hold('req:1', '0.8', wide);
      expect(await holds.release('u1', ['other-id'], { orChat: 'c1', orOldestRequestHold: true })).toBe(1);
      expect(await held()).toBe('1.4'); // a went
      expect(await holds.release('u1', ['other-id'], { orChat: 'c1' })).toBe(1);
      expect(await held()).toBe('1.2'); // b went
      // No hold left in c1: the oldest request hold goes (when asked), never another chat's.
      expect(await holds.release('u1', ['other-id'], { orChat: 'c1' })).toBe(0);
      expect(await holds.release('u1', ['other-id'], { orChat: 'c1', orOldestRequestHold: true })).toBe(1);
      expect(await held()).toBe('0.4');
      // An id that is held is released by itself, not by the chat.
      await hold('y', '0.3', inChat('c2', 'q1'));
      expect(await holds.release('u1', ['y'], { orChat: 'c2' })).toBe(1);
      expect(await held()).toBe('0.4');
    });

    it("a reply settles by its chat only a hold made for its model: a reply that held nothing frees no other's room", async () => {
      // Open WebUI sends a turn to several selected models at once; a model outside the caps' `pipelines` holds
      // nothing, and its reply (its own message id) must not settle the capped model's hold while that reply runs.
      const forModel = (chat: string, turn: string, model: string) => ({ ...wide, chat: { id: chat, turn, model } });
      await hold('x', '0.3', forModel('c1', 'q1', 'openai/gpt-4o'));
      await hold('req:1', '0.2', wide);
      expect(await holds.release('u1', ['y'], { orChat: 'c1', model: 'llama3' })).toBe(0);
      expect(await held()).toBe('0.5');
      // Still falls back to the oldest request hold when asked, as a reply without a chat would.
      expect(await holds.release('u1', ['y'], { orChat: 'c1', model: 'llama3', orOldestRequestHold: true })).toBe(1);
      expect(await held()).toBe('0.3');
      // The held model's reply reported under another id settles it.
      expect(await holds.release('u1', ['x-as-reported'], { orChat: 'c1', model: 'openai/gpt-4o' })).toBe(1);
      expect(await held()).toBe('0');
      // A hold made without a model (no model in the request) is settled by a reply of any model of its chat.
      await hold('z', '0.1', inChat('c2', 'q1'));
      expect(await holds.release('u1', ['other'], { orChat: 'c2', model: 'llama3' })).toBe(1);
      expect(await held()).toBe('0');
      // The next turn still ends a hold of any model (the earlier turn's replies are over).
      await hold('a', '0.1', forModel('c3', 'q1', 'openai/gpt-4o'));
      expect(await hold('b', '0.1', forModel('c3', 'q2', 'llama3'))).toMatchObject({ held: '0.1' });
    });

    it("a late reply under another id settles its chat's hold ended by a turn, not the next turn's in flight", async () => {
      const forModel = (turn: string) => ({ ...wide, chat: { id: 'c1', turn, model: 'openai/gpt-4o' } });
      await hold('a', '0.3', forModel('q1'));
      await hold('b', '0.3', forModel('q2')); // the next turn: a is ended (its reply runs unheld)
      expect(await held()).toBe('0.3');
      // a's reply comes after that turn, reported under another id: it settles a, and b's reply stays held.
      expect(await holds.release('u1', ['a-as-reported'], { orChat: 'c1', model: 'openai/gpt-4o' })).toBe(1);
      expect(await held()).toBe('0.3');
      // No ended hold pending any more: the next turn ends b; b's late reply under another id settles b's $0 hold.
      expect(await hold('c', '0.3', forModel('q3'))).toMatchObject({ held: '0.3' });
      expect(await holds.release('u1', ['b-as-reported'], { orChat: 'c1', model: 'openai/gpt-4o' })).toBe(1);
      expect(await held()).toBe('0.3');
      // A reply of another model settles no ended hold of this one: c's hold stays, as does its room.
      expect(await hold('d', '0.1', forModel('q4'))).toMatchObject({ held: '0.1' }); // c ended
      expect(await holds.release('u1', ['other'], { orChat: 'c1', model: 'llama3' })).toBe(0);
      expect(await holds.release('u1', ['c-as-reported'], { orChat: 'c1', model: 'openai/gpt-4o' })).toBe(1);
      expect(await held()).toBe('0.1');
    });
  });
}
