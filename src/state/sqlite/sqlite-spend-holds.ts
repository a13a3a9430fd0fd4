import type Database from 'better-sqlite3';
import { formatDecimal, parseDecimal } from '../../domain/pricing/decimal.js';
import { joinCost } from '../../domain/usage/cost-parts.js';
import {
  endsHold,
  hasRoom,
  nanoToDecimal,
  settledByChat,
  toNano,
  REQUEST_HOLD_PREFIX,
  type HoldChat,
  type HoldOutcome,
  type HoldRequest,
  type ReleaseOptions,
  type SpendHolds,
} from '../../domain/usage/spend-reservations.js';

/** How often holds of users who sent nothing since are swept out (epoch ms of the callers' clock). */
const SWEEP_EVERY_MS = 60_000;

interface Hold {
  nano: bigint;
  expiresAt: number;
  chat?: HoldChat;
  /** Settled by a later turn of its chat (nano 0), kept by id until its reply is recorded or it expires. */
  ended?: boolean;
}

/** One user's live holds: by id (in the order they were made), their sum, and a min-heap of expiries. */
interface UserHolds {
  sum: bigint;
  byId: Map<string, Hold>;
  /** (expiresAt, id) entries; an entry whose hold is gone or now expires later is skipped when it comes up. */
  expiries: Array<{ at: number; id: string }>;
}

/**
 * Spend holds of the SQLite backend. The check and the hold are one synchronous step on the store's
 * thread: the ledger's spend counters are read from SQLite (after the queued ledger writes are written),
 * the user's holds are kept in this process's memory, and nothing else runs in between — no ledger
 * write, no other reservation. The SQLite backend is one process per file (replicas
 * use Redis, whose script does the same in Redis). In memory, a reservation costs a few µs whatever the
 * number of holds (as tables it cost 23 µs with few holds and grew past 150 µs at 100,000); a restart
 * forgets the holds of requests in flight (their replies are still recorded).
 */
export class SqliteSpendHolds implements SpendHolds {
  private readonly users = new Map<string, UserHolds>();
  private readonly readCounters: (userId: string, periods: readonly string[]) => bigint[];
  private nextSweep = Number.NEGATIVE_INFINITY;

  constructor(
    db: Database.Database,
    private readonly run: <T>(step: () => T) => T,
    /** Write the ledger's queued records first, so their spend counts (the usage store's group commit). */
    private readonly flushLedger: () => void,
  ) {
    const readSpend = db.prepare('SELECT hi, lo FROM ledger_spend WHERE user_id = ? AND period = ?').safeIntegers(true);
    // Synchronous reads on the store's one connection: no write can come between them (or before the hold).
    this.readCounters = (userId, periods) =>
      periods.map((period) => {
        const row = readSpend.get(userId, period) as { hi: bigint; lo: bigint } | undefined;
        return joinCost(row?.hi, row?.lo);
      });
  }

  async reserve(request: HoldRequest): Promise<HoldOutcome> {
    return this.run(() => {
      this.flushLedger();
      const spent = this.readCounters(
        request.userId,
        request.caps.map((cap) => cap.period),
      );
      const user = this.live(request.userId, request.now);
      if (user && request.chat) this.endTurn(user, request.chat, request.id);
      const held = nanoToDecimal(user?.sum ?? 0n);
      const amountNano = toNano(request.amount);
      const amount = nanoToDecimal(amountNano);
      const blockedBy = request.caps.findIndex(
        (cap, index) => !hasRoom(spent[index]!, held, amount, parseDecimal(cap.limit) ?? 0n),
      );
      const admitted = blockedBy < 0;
      if (admitted) this.add(request.userId, request.id, amountNano, request.expiresAt, request.chat);
      return {
        admitted,
        ...(admitted ? {} : { blockedBy }),
        spent: spent.map(formatDecimal),
        held: formatDecimal(admitted ? held + amount : held),
      };
    });
  }

  async release(userId: string, ids: readonly string[], options: ReleaseOptions = {}): Promise<number> {
    const user = this.users.get(userId);
    if (!user) return 0;
    let dropped = 0;
    for (const id of ids) dropped += this.drop(user, id);
    if (dropped === 0 && options.orChat) {
      // First the chat's hold ended by a turn (its turn is over: a late reply is most likely its), else the oldest
      // still holding, so a late reply under another id does not also free the next turn's room.
      let oldest: string | undefined;
      let ended: string | undefined;
      for (const [id, hold] of user.byId) {
        if (!settledByChat(hold.chat, options.orChat, options.model)) continue;
        if (hold.ended) {
          ended = id;
          break;
        }
        if (oldest === undefined && hold.nano > 0n) oldest = id;
      }
      const settled = ended ?? oldest;
      if (settled !== undefined) dropped = this.drop(user, settled);
    }
    if (dropped === 0 && options.orOldestRequestHold) {
      for (const id of user.byId.keys()) {
        if (id.startsWith(REQUEST_HOLD_PREFIX)) {
          dropped = this.drop(user, id);
          break;
        }
      }
    }
    if (user.byId.size === 0) this.users.delete(userId);
    return dropped;
  }

  /** The same id again adds to its hold (a reused message id must not free room) and keeps the later expiry. */
  /** Settle (to $0, keeping the id) the one hold of `chat` that a new turn under `id` ends, if any (see HoldChat). */
  private endTurn(user: UserHolds, chat: HoldChat, id: string): void {
    for (const hold of user.byId.values()) if (hold.ended) return; // one ended hold pending at a time
    for (const [heldId, hold] of user.byId) {
      if (heldId !== id && hold.nano > 0n && endsHold(chat, hold.chat)) {
        user.sum -= hold.nano;
        hold.nano = 0n;
        hold.ended = true;
        return;
      }
    }
  }

  private add(userId: string, id: string, nano: bigint, expiresAt: number, chat?: HoldChat): void {
    let user = this.users.get(userId);
    if (!user) {
      user = { sum: 0n, byId: new Map(), expiries: [] };
      this.users.set(userId, user);
    }
    const existing = user.byId.get(id);
    user.sum += nano;
    if (existing) {
      existing.nano += nano;
      existing.ended = false; // held again under its id: a request in flight
      if (chat) existing.chat = chat;
      if (expiresAt <= existing.expiresAt) return;
      existing.expiresAt = expiresAt;
    } else {
      user.byId.set(id, { nano, expiresAt, ...(chat ? { chat } : {}) });
    }
    push(user.expiries, { at: expiresAt, id });
  }

  private drop(user: UserHolds, id: string): number {
    const hold = user.byId.get(id);
    if (!hold) return 0;
    user.byId.delete(id);
    user.sum -= hold.nano;
    return 1;
  }

  /** The user's holds with the expired ones dropped (and, once a minute, every user's). */
  private live(userId: string, now: number): UserHolds | undefined {
    if (now >= this.nextSweep) {
      this.nextSweep = now + SWEEP_EVERY_MS;
      for (const [id, user] of this.users) {
        this.expire(user, now);
        if (user.byId.size === 0) this.users.delete(id);
      }
    }
    const user = this.users.get(userId);
    if (user) this.expire(user, now);
    return user;
  }

  private expire(user: UserHolds, now: number): void {
    for (let top = user.expiries[0]; top && top.at <= now; top = user.expiries[0]) {
      pop(user.expiries);
      const hold = user.byId.get(top.id);
      if (hold && hold.expiresAt === top.at) this.drop(user, top.id);
    }
  }
}

/** Binary min-heap by `at`. */
function push(heap: Array<{ at: number; id: string }>, entry: { at: number; id: string }): void {
  heap.push(entry);
  for (let index = heap.length - 1; index > 0; ) {
    const parent = (index - 1) >> 1;
    if (heap[parent]!.at <= heap[index]!.at) break;
    [heap[parent], heap[index]] = [heap[index]!, heap[parent]!];
    index = parent;
  }
}

function pop(heap: Array<{ at: number; id: string }>): void {
  const last = heap.pop();
  if (!last || heap.length === 0) return;
  heap[0] = last;
  for (let index = 0; ; ) {
    const left = 2 * index + 1;
    const right = left + 1;
    let smallest = index;
    if (left < heap.length && heap[left]!.at < heap[smallest]!.at) smallest = left;
    if (right < heap.length && heap[right]!.at < heap[smallest]!.at) smallest = right;
    if (smallest === index) return;
    [heap[smallest], heap[index]] = [heap[index]!, heap[smallest]!];
    index = smallest;
  }
}
