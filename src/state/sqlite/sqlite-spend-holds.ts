import type Database from 'better-sqlite3';
import { formatDecimal, parseDecimal } from '../../pricing/decimal.js';
import { joinCost } from '../../usage/cost-parts.js';
import {
  hasRoom,
  nanoToDecimal,
  toNano,
  type HoldOutcome,
  type HoldRequest,
  type SpendHolds,
} from '../../usage/spend-reservations.js';

/**
 * Spend holds on SQLite: a `spend_holds` row per live hold and a `spend_held` sum per user kept by
 * triggers, so a reservation reads one sum whatever the number of holds. `reserve` is one IMMEDIATE
 * transaction (drop expired holds, read the ledger's spend counters and the user's held sum, check,
 * insert): nothing else writes between the check and the hold, in this process or another on the file.
 * The tables are created here (holds are short-lived: a database without them simply has none yet).
 */
export class SqliteSpendHolds implements SpendHolds {
  private readonly reserveTransaction: (request: HoldRequest) => HoldOutcome;
  private readonly releaseTransaction: (userId: string, ids: readonly string[]) => void;

  constructor(
    db: Database.Database,
    private readonly run: <T>(step: () => T) => T,
    /** Write the ledger's queued records first, so their spend counts (the usage store's group commit). */
    private readonly flushLedger: () => void,
  ) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS spend_holds (
        user_id TEXT NOT NULL, id TEXT NOT NULL, nano INTEGER NOT NULL, expires_at INTEGER NOT NULL,
        PRIMARY KEY (user_id, id)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS spend_holds_expiry ON spend_holds (expires_at);
      CREATE TABLE IF NOT EXISTS spend_held (user_id TEXT PRIMARY KEY, nano INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TRIGGER IF NOT EXISTS spend_holds_added AFTER INSERT ON spend_holds BEGIN
        INSERT INTO spend_held (user_id, nano) VALUES (new.user_id, new.nano)
          ON CONFLICT (user_id) DO UPDATE SET nano = nano + excluded.nano;
      END;
      CREATE TRIGGER IF NOT EXISTS spend_holds_removed AFTER DELETE ON spend_holds BEGIN
        UPDATE spend_held SET nano = nano - old.nano WHERE user_id = old.user_id;
      END;
    `);
    const purge = db.prepare('DELETE FROM spend_holds WHERE expires_at <= ?');
    const drop = db.prepare('DELETE FROM spend_holds WHERE user_id = ? AND id = ?');
    const heldSum = db.prepare('SELECT nano FROM spend_held WHERE user_id = ?').safeIntegers(true);
    const readSpend = db.prepare('SELECT hi, lo FROM ledger_spend WHERE user_id = ? AND period = ?').safeIntegers(true);
    const insert = db.prepare('INSERT INTO spend_holds (user_id, id, nano, expires_at) VALUES (?, ?, ?, ?)');

    const reserve = db.transaction((request: HoldRequest): HoldOutcome => {
      purge.run(request.now);
      drop.run(request.userId, request.id); // the same id again replaces its hold
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
    this.reserveTransaction = (request) => reserve.immediate(request);

    this.releaseTransaction = db.transaction((userId: string, ids: readonly string[]) => {
      for (const id of ids) drop.run(userId, id);
    });
  }

  async reserve(request: HoldRequest): Promise<HoldOutcome> {
    return this.run(() => {
      this.flushLedger();
      return this.reserveTransaction(request);
    });
  }

  async release(userId: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    this.run(() => this.releaseTransaction(userId, ids));
  }
}
