import type Database from 'better-sqlite3';
import { formatDecimal, parseDecimal } from '../../domain/pricing/decimal.js';
import { joinCost } from '../../domain/usage/cost-parts.js';
import {
  endsHold,
  hasRoom,
  nanoToDecimal,
  scopeMember,
  settledByChat,
  splitCaps,
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
  /** The shared scopes it also holds its amount in (under `scopeMember(user, id)`). */
  scopes?: string[];
}

/** One user's (or one shared scope's) live holds: by id (in the order they were made), their sum, and a min-heap of expiries. */
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
  /** The live holds of each shared scope (a group, a model pattern), by member (scopeMember). */
  private readonly scopes = new Map<string, UserHolds>();
  private readonly readCounters: (userId: string, periods: readonly string[]) => bigint[];
  private readonly readScope: (scope: string, period: string) => bigint;
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
    const scopeSpend = db
      .prepare('SELECT hi, lo FROM ledger_scope_spend WHERE scope = ? AND period = ?')
      .safeIntegers(true);
    this.readScope = (scope, period) => {
      const row = scopeSpend.get(scope, period) as { hi: bigint; lo: bigint } | undefined;
      return joinCost(row?.hi, row?.lo);
    };
  }

  async reserve(request: HoldRequest): Promise<HoldOutcome> {
    return this.run(() => {
      this.flushLedger();
      const { own, scoped } = splitCaps(request.caps);
      const ownSpent = this.readCounters(
        request.userId,
        own.map(({ cap }) => cap.period),
      );
      const spent: bigint[] = request.caps.map(() => 0n);
      for (const [at, { index }] of own.entries()) spent[index] = ownSpent[at]!;
      for (const { cap, index } of scoped) spent[index] = this.readScope(cap.scope, cap.period);
      const user = this.live(request.userId, request.now);
      if (user && request.chat) this.endTurn(user, request.chat, request.id);
      const held = nanoToDecimal(user?.sum ?? 0n);
      const amountNano = toNano(request.amount);
      const amount = nanoToDecimal(amountNano);
      // What each cap is checked against: the user's holds, or all the scope's members' holds.
      const heldBy = request.caps.map((cap) =>
        cap.scope ? nanoToDecimal(this.liveScope(cap.scope, request.now)?.sum ?? 0n) : held,
      );
      const blockedBy = request.caps.findIndex(
        (cap, index) => !hasRoom(spent[index]!, heldBy[index]!, amount, parseDecimal(cap.limit) ?? 0n),
      );
      const admitted = blockedBy < 0;
      const scopes = [...new Set(scoped.map(({ cap }) => cap.scope))];
      if (admitted) this.add(request.userId, request.id, amountNano, request.expiresAt, request.chat, scopes);
      return {
        admitted,
        ...(admitted ? {} : { blockedBy }),
        spent: spent.map(formatDecimal),
        held: formatDecimal(admitted ? held + amount : held),
        ...(scoped.length > 0
          ? { scopeHeld: heldBy.map((value) => formatDecimal(admitted ? value + amount : value)) }
          : {}),
      };
    });
  }

  async release(userId: string, ids: readonly string[], options: ReleaseOptions = {}): Promise<number> {
    const user = this.users.get(userId);
    if (!user) return 0;
    let dropped = 0;
    for (const id of ids) dropped += this.drop(user, id, userId);
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
      if (settled !== undefined) dropped = this.drop(user, settled, userId);
    }
    if (dropped === 0 && options.orOldestRequestHold) {
      for (const id of user.byId.keys()) {
        if (id.startsWith(REQUEST_HOLD_PREFIX)) {
          dropped = this.drop(user, id, userId);
          break;
        }
      }
    }
    if (user.byId.size === 0) this.users.delete(userId);
    return dropped;
  }

  /** Settle (to $0, keeping the id) the one hold of `chat` that a new turn under `id` ends, if any (see HoldChat). */
  private endTurn(user: UserHolds, chat: HoldChat, id: string): void {
    for (const hold of user.byId.values()) if (hold.ended) return; // one ended hold pending at a time
    for (const [heldId, hold] of user.byId) {
      if (heldId !== id && hold.nano > 0n && endsHold(chat, hold.chat)) {
        user.sum -= hold.nano;
        hold.nano = 0n;
        hold.ended = true;
        // Its parts in shared scopes stay until its reply is recorded or it expires: each member may have one such
        // request running unheld by their own caps, but a group's members together never run one unheld.
        return;
      }
    }
  }

  /** The same id again adds to its hold (a reused message id must not free room) and keeps the later expiry. */
  private add(
    userId: string,
    id: string,
    nano: bigint,
    expiresAt: number,
    chat: HoldChat | undefined,
    scopes: readonly string[],
  ): void {
    const hold = addTo(this.users, userId, id, nano, expiresAt);
    if (chat) hold.chat = chat;
    hold.ended = false; // held (again) under its id: a request in flight
    if (scopes.length > 0) hold.scopes = [...new Set([...(hold.scopes ?? []), ...scopes])];
    for (const scope of scopes) addTo(this.scopes, scope, scopeMember(userId, id), nano, expiresAt);
  }

  private drop(user: UserHolds, id: string, userId: string): number {
    const hold = user.byId.get(id);
    if (!hold) return 0;
    user.byId.delete(id);
    user.sum -= hold.nano;
    this.dropScopeParts(userId, id, hold);
    return 1;
  }

  /** Drop a user's hold's part in each of its scopes. */
  private dropScopeParts(userId: string, id: string, hold: Hold): void {
    if (!hold.scopes) return;
    const member = scopeMember(userId, id);
    for (const scope of hold.scopes) {
      const holds = this.scopes.get(scope);
      const part = holds?.byId.get(member);
      if (!holds || !part) continue;
      holds.byId.delete(member);
      holds.sum -= part.nano;
      if (holds.byId.size === 0) this.scopes.delete(scope);
    }
    delete hold.scopes;
  }

  /** The user's holds with the expired ones dropped (and, once a minute, every user's and scope's). */
  private live(userId: string, now: number): UserHolds | undefined {
    if (now >= this.nextSweep) {
      this.nextSweep = now + SWEEP_EVERY_MS;
      for (const [id, user] of this.users) {
        this.expire(user, now, id);
        if (user.byId.size === 0) this.users.delete(id);
      }
      for (const [scope, holds] of this.scopes) {
        expireParts(holds, now);
        if (holds.byId.size === 0) this.scopes.delete(scope);
      }
    }
    const user = this.users.get(userId);
    if (user) this.expire(user, now, userId);
    return user;
  }

  /** A scope's holds with the expired parts dropped (a part expires with its user's hold). */
  private liveScope(scope: string, now: number): UserHolds | undefined {
    const holds = this.scopes.get(scope);
    if (holds) expireParts(holds, now);
    return holds;
  }

  private expire(user: UserHolds, now: number, userId: string): void {
    for (let top = user.expiries[0]; top && top.at <= now; top = user.expiries[0]) {
      pop(user.expiries);
      const hold = user.byId.get(top.id);
      if (hold && hold.expiresAt === top.at) this.drop(user, top.id, userId);
    }
  }
}

/** Add `nano` under `id` to the holds of `owner` in `map` (creating them), keeping the later expiry; the hold. */
function addTo(map: Map<string, UserHolds>, owner: string, id: string, nano: bigint, expiresAt: number): Hold {
  let holds = map.get(owner);
  if (!holds) {
    holds = { sum: 0n, byId: new Map(), expiries: [] };
    map.set(owner, holds);
  }
  holds.sum += nano;
  const existing = holds.byId.get(id);
  if (existing) {
    existing.nano += nano;
    if (expiresAt <= existing.expiresAt) return existing;
    existing.expiresAt = expiresAt;
    push(holds.expiries, { at: expiresAt, id });
    return existing;
  }
  const hold: Hold = { nano, expiresAt };
  holds.byId.set(id, hold);
  push(holds.expiries, { at: expiresAt, id });
  return hold;
}

/** Drop a scope's parts whose expiry has come. */
function expireParts(holds: UserHolds, now: number): void {
  for (let top = holds.expiries[0]; top && top.at <= now; top = holds.expiries[0]) {
    pop(holds.expiries);
    const part = holds.byId.get(top.id);
    if (part && part.expiresAt === top.at) {
      holds.byId.delete(top.id);
      holds.sum -= part.nano;
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
