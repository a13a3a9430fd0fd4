import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLedger } from '../../src/runtime/usage/ledger.js';
import { createTokenCorrections } from '../../src/runtime/usage/token-corrections.js';
import { usageRecord } from './helpers/usage-record.js';
import type { StateStore } from '../../src/state/types.js';
import { tempSqliteStore } from '../helpers/temp-store.js';

let store: StateStore;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ store, dispose: cleanup } = await tempSqliteStore());
});
afterEach(async () => cleanup());

describe('ledger on a real SQLite store', () => {
  it('records once per message id: a repeated outlet never counts twice', async () => {
    const ledger = createLedger(store);
    expect(await ledger.record(usageRecord())).toBe(true);
    expect(await ledger.record(usageRecord({ cost: '5' }))).toBe(false);
    expect(await ledger.list({})).toHaveLength(1);
    expect(await ledger.spent('u1', 0, Date.UTC(2027, 0, 1))).toBe('0.00035');
  });

  it('sums spend exactly per user and time window', async () => {
    const ledger = createLedger(store);
    for (let index = 0; index < 10; index++) {
      await ledger.record(usageRecord({ messageId: `a${index}`, cost: '0.1', time: Date.UTC(2026, 10, 5, index) }));
    }
    await ledger.record(usageRecord({ messageId: 'b', userId: 'u2', cost: '0.2' }));
    expect(await ledger.spent('u1', 0, Date.UTC(2027, 0, 1))).toBe('1');
    expect(await ledger.spent('u1', Date.UTC(2026, 10, 5, 5), Date.UTC(2026, 10, 5, 8))).toBe('0.3');
    expect(await ledger.spent('u2', 0, Date.UTC(2027, 0, 1))).toBe('0.2');
    expect(await ledger.spent('nobody', 0, Date.UTC(2027, 0, 1))).toBe('0');
  });

  it('filters by user, model and chat', async () => {
    const ledger = createLedger(store);
    await ledger.record(usageRecord({ messageId: 'x1', chatId: 'c1' }));
    await ledger.record(
      usageRecord({ messageId: 'x2', chatId: 'c2', model: 'claude', pricedAs: 'anthropic/claude-3.5-sonnet' }),
    );
    await ledger.record(usageRecord({ messageId: 'x3', userId: 'u2', chatId: 'c1' }));
    expect((await ledger.list({ userId: 'u1' })).map((record) => record.messageId)).toEqual(['x1', 'x2']);
    expect((await ledger.list({ model: 'anthropic/claude-3.5-sonnet' })).map((record) => record.messageId)).toEqual([
      'x2',
    ]);
    expect((await ledger.list({ chatId: 'c1' })).map((record) => record.messageId)).toEqual(['x1', 'x3']);
  });
});

describe('token corrections', () => {
  it('EMA of actual/estimated, clamped to [0.5, 2]', async () => {
    const corrections = createTokenCorrections(store, { alpha: 0.5 });
    expect(await corrections.get('gpt-4o')).toBeUndefined();
    expect(await corrections.observe('gpt-4o', 100, 120)).toBeCloseTo(1.2);
    expect(await corrections.observe('gpt-4o', 100, 100)).toBeCloseTo(1.1);
    expect(await corrections.get('gpt-4o')).toBeCloseTo(1.1);
    expect(await corrections.observe('claude', 100, 1000)).toBe(2);
    expect(await corrections.observe('claude', 100, 1)).toBeCloseTo(1.25);
    expect(await corrections.observe('tiny', 1000, 1)).toBe(0.5);
    expect(await corrections.observe('gpt-4o', 0, 100)).toBeCloseTo(1.1);
  });
});
