import type Database from 'better-sqlite3';
import { formatDecimal, parseDecimal } from '../../pricing/decimal.js';
import { joinCost } from '../../usage/cost-parts.js';
import {
  hasRoom,
  nanoToDecimal,
  toNano,
  REQUEST_HOLD_PREFIX,
  type HoldOutcome,
  type HoldRequest,
  type ReleaseOptions,
  type SpendHolds,
} from '../../usage/spend-reservations.js';

/**
 * Spend holds on SQLite: a `spend_holds` row per live hold and a `spend_held` sum per user kept by
 * triggers, so a reservation reads one sum whatever the number of holds. `reserve` is one transaction
 * (drop expired holds, read the ledger's spend counters and the user's held sum, check, insert) on the
 * store's one connection: no ledger write can come between the check and the hold. The hold tables are
 * TEMP tables of that connection (in memory, nothing written to the WAL): holds live seconds to minutes,
 * so a reservation costs no disk write (28 µs against 65 µs as tables of the file), and a restart forgets
 * the holds of requests in flight (their replies are still recorded). One process per SQLite file, as
 * for the rest of the SQLite backend; replicas use Redis.
 */
export class SqliteSpendHolds implements SpendHolds {
  private readonly reserveTransaction: (request: HoldRequest) => HoldOutcome;
  private readonly releaseTransaction: (userId: string, ids: readonly string[], oldest: boolean) => number;

  constructor(
    db: Database.Database,
    private readonly run: <T>(step: () => T) => T,
    /** Write the ledger's queued records first, so their spend counts (the usage store's group commit). */
    private readonly flushLedger: () => void,
  ) {
    db.exec(`
      CREATE TEMP TABLE IF NOT EXISTS spend_holds (
        user_id TEXT NOT NULL, id TEXT NOT NULL, nano INTEGER NOT NULL, expires_at INTEGER NOT NULL,
        PRIMARY KEY (user_id, id)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS temp.spend_holds_expiry ON spend_holds (expires_at);
      CREATE TEMP TABLE IF NOT EXISTS spend_held (user_id TEXT PRIMARY KEY, nano INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TEMP TRIGGER IF NOT EXISTS spend_holds_added AFTER INSERT ON spend_holds BEGIN
        INSERT INTO spend_held (user_id, nano) VALUES (new.user_id, new.nano)
          ON CONFLICT (user_id) DO UPDATE SET nano = nano + excluded.nano;
      END;
      CREATE TEMP TRIGGER IF NOT EXISTS spend_holds_grown AFTER UPDATE OF nano ON spend_holds BEGIN
        UPDATE spend_held SET nano = nano + new.nano - old.nano WHERE user_id = new.user_id;
      END;
      CREATE TEMP TRIGGER IF NOT EXISTS spend_holds_removed AFTER DELETE ON spend_holds BEGIN
        UPDATE spend_held SET nano = nano - old.nano WHERE user_id = old.user_id;
      END;
    `);
    const purge = db.prepare('DELETE FROM spend_holds WHERE expires_at <= ?');
    const drop = db.prepare('DELETE FROM spend_holds WHERE user_id = ? AND id = ?');
    const heldSum = db.prepare('SELECT nano FROM spend_held WHERE user_id = ?').safeIntegers(true);
    const readSpend = db.prepare('SELECT hi, lo FROM ledger_spend WHERE user_id = ? AND period = ?').safeIntegers(true);
    // The same id again adds to its hold (a reused message id must not free room), and keeps the later expiry.
    const insert = db.prepare(
      `INSERT INTO spend_holds (user_id, id, nano, expires_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_id, id) DO UPDATE SET nano = nano + excluded.nano, expires_at = max(expires_at, excluded.expires_at)`,
    );

    const reserve = db.transaction((request: HoldRequest): HoldOutcome => {
      purge.run(request.now);
      const heldNano = (heldSum.get(request.userId) as { nano: bigint } | undefined)?.nano ?? 0n;
      const held = nanoToDecimal(heldNano);
      const amountNano = toNano(request.amount);
      const amount = nanoToDecimal(amountNano);
      const spent = request.caps.map((cap) => {
        const row = readSpend.get(request.userId, cap.period) as { hi: bigint; lo: bigint } | undefined;
        return joinCost(row?.hi, row?.lo);
      });
      const blockedBy = request.caps.findIndex(
        (cap, index) => !hasRoom(spent[index]!, held, amount, parseDecimal(cap.limit) ?? 0n),
      );
      const admitted = blockedBy < 0;
      if (admitted) insert.run(request.userId, request.id, amountNano, request.expiresAt);
      return {
        admitted,
        ...(admitted ? {} : { blockedBy }),
        spent: spent.map(formatDecimal),
        held: formatDecimal(admitted ? held + amount : held),
      };
    });
    this.reserveTransaction = (request) => reserve(request);

    // The oldest hold kept under a request id: the ids from `req:` up to `req;` (the next character).
    const oldestRequest = db.prepare(
      'SELECT id FROM spend_holds WHERE user_id = ? AND id >= ? AND id < ? ORDER BY expires_at LIMIT 1',
    );
    const prefixEnd = `${REQUEST_HOLD_PREFIX.slice(0, -1)};`;
    this.releaseTransaction = db.transaction((userId: string, ids: readonly string[], oldest: boolean) => {
      let dropped = 0;
      for (const id of ids) dropped += drop.run(userId, id).changes;
      if (dropped > 0 || !oldest) return dropped;
      const row = oldestRequest.get(userId, REQUEST_HOLD_PREFIX, prefixEnd) as { id: string } | undefined;
      return row ? drop.run(userId, row.id).changes : 0;
    });
  }

  async reserve(request: HoldRequest): Promise<HoldOutcome> {
    return this.run(() => {
      this.flushLedger();
      return this.reserveTransaction(request);
    });
  }

  async release(userId: string, ids: readonly string[], options: ReleaseOptions = {}): Promise<number> {
    return this.run(() => this.releaseTransaction(userId, ids, options.orOldestRequestHold === true));
  }
}
