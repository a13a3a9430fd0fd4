import type Database from 'better-sqlite3';
import { periodKey } from '../../domain/usage/budget-periods.js';
import { splitCost } from '../../domain/usage/cost-parts.js';
import { dailyTargets, recordTotals, utcDay } from '../../domain/usage/daily-usage.js';
import { recordScopes, type UsageRecord } from '../../domain/usage/types.js';

/**
 * Writes one usage record into the SQLite ledger's tables: its `ledger` row (INSERT OR IGNORE by message id, so a
 * repeat adds nothing), its user's `ledger_spend` counters (UTC day and month), the
 * `ledger_scope_spend` counters of the shared cap scopes it names (`scopes`) and its `ledger_daily` aggregates.
 * Call it inside a transaction: the row and its counters land together or not at all.
 */
export class LedgerRows {
  private readonly insertRow: Database.Statement;
  private readonly addSpend: Database.Statement;
  private readonly addDaily: Database.Statement;
  private readonly addScopeSpend: Database.Statement;

  constructor(db: Database.Database) {
    this.insertRow = db.prepare(
      `INSERT OR IGNORE INTO ledger (id, time, user_id, chat_id, model, priced_as, model_key, prompt, completion, cached,
         cache_write, reasoning, total, cost_hi, cost_lo, cost_source, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.addSpend = db.prepare(
      `INSERT INTO ledger_spend (user_id, period, hi, lo) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_id, period) DO UPDATE SET hi = hi + excluded.hi, lo = lo + excluded.lo`,
    );
    this.addScopeSpend = db.prepare(
      `INSERT INTO ledger_scope_spend (scope, period, hi, lo) VALUES (?, ?, ?, ?)
       ON CONFLICT (scope, period) DO UPDATE SET hi = hi + excluded.hi, lo = lo + excluded.lo`,
    );
    this.addDaily = db.prepare(
      `INSERT INTO ledger_daily (day, dimension, key, records, prompt, completion, cached, cache_write, reasoning, total,
         estimated, unpriced, hi, lo) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (dimension, day, key) DO UPDATE SET records = records + excluded.records,
         prompt = prompt + excluded.prompt, completion = completion + excluded.completion,
         cached = cached + excluded.cached, cache_write = cache_write + excluded.cache_write,
         reasoning = reasoning + excluded.reasoning, total = total + excluded.total,
         estimated = estimated + excluded.estimated, unpriced = unpriced + excluded.unpriced,
         hi = hi + excluded.hi, lo = lo + excluded.lo`,
    );
  }

  /** Insert `record` with its counters; false (and nothing added) when a record with its message id is there. */
  insert(record: UsageRecord): boolean {
    const { hi, lo } = splitCost(record.cost);
    const inserted = this.insertRow.run(
      record.messageId,
      record.time,
      record.userId,
      record.chatId ?? null,
      record.model,
      record.pricedAs ?? null,
      record.pricedAs ?? record.model,
      record.promptTokens,
      record.completionTokens,
      record.cachedTokens,
      record.cacheWriteTokens,
      record.reasoningTokens,
      record.totalTokens,
      hi,
      lo,
      record.costSource,
      JSON.stringify(record),
    );
    if (inserted.changes === 0) return false;
    this.addSpend.run(record.userId, periodKey('daily', record.time), hi, lo);
    this.addSpend.run(record.userId, periodKey('monthly', record.time), hi, lo);
    for (const scope of recordScopes(record)) {
      this.addScopeSpend.run(scope, periodKey('daily', record.time), hi, lo);
      this.addScopeSpend.run(scope, periodKey('monthly', record.time), hi, lo);
    }
    const totals = recordTotals(record);
    const day = utcDay(record.time);
    for (const { dimension, key } of dailyTargets(record)) {
      this.addDaily.run(
        day,
        dimension,
        key,
        totals.records,
        totals.promptTokens,
        totals.completionTokens,
        totals.cachedTokens,
        totals.cacheWriteTokens,
        totals.reasoningTokens,
        totals.totalTokens,
        totals.estimated,
        totals.unpriced,
        hi,
        lo,
      );
    }
    return true;
  }
}
