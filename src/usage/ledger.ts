import type { StateStore, StreamRecord } from '../state/types.js';
import type { Ledger, UsageRecord } from './types.js';
import { add, formatDecimal, parseDecimal } from '../pricing/decimal.js';

/** Stream holding every usage record; per-user copies live in `ledger:user:<id>` for fast spend sums. */
export const LEDGER_STREAM = 'ledger';
const userStream = (userId: string) => `ledger:user:${userId}`;

/** Query of Ledger.list. */
export type LedgerQuery = Parameters<Ledger['list']>[0];

/** Exact decimal sum of the `cost` of records. */
export function sumCosts(records: readonly Pick<UsageRecord, 'cost'>[]): string {
  return formatDecimal(add(...records.map((record) => parseDecimal(record.cost) ?? 0n)));
}

/**
 * The spend ledger on a StateStore: `append` is idempotent by message id, so a repeated
 * outlet never counts twice; `range` answers time windows. Every record is written to the
 * global stream and to its user's stream (both idempotent), so `spent()` reads one user only.
 */
export function createLedger(store: StateStore): Ledger {
  return {
    async record(entry) {
      const record: StreamRecord<Record<string, unknown>> = { id: entry.messageId, time: entry.time, data: { ...entry } };
      const added = await store.append(LEDGER_STREAM, record);
      // Written even when the global append was a repeat: heals a crash between the two writes.
      await store.append(userStream(entry.userId), record);
      return added;
    },
    async list(query) {
      const stream = query.userId ? userStream(query.userId) : LEDGER_STREAM;
      const records = await store.range<Record<string, unknown>>(stream, { from: query.from, to: query.to });
      return records
        .map((record) => record.data as unknown as UsageRecord)
        .filter((record) => (!query.model || record.model === query.model || record.pricedAs === query.model) && (!query.chatId || record.chatId === query.chatId));
    },
    async spent(userId, from, to) {
      const records = await store.range<Record<string, unknown>>(userStream(userId), { from, to });
      return sumCosts(records.map((record) => record.data as unknown as UsageRecord));
    },
  };
}
