import { compare, parseDecimal, type Decimal } from '../pricing/decimal.js';
import { errorMessage } from '../../core/util/error-message.js';

/**
 * Spend reservations ("holds"): the spend-limit inlet holds an estimated cost for each request it
 * admits, against every cap in force, in one atomic step with the check (one SQLite transaction, one
 * Redis script), so concurrent requests (or replicas) cannot all pass a cap that has room for one.
 * A hold is keyed by the user and an id both ends of a request know (Open WebUI's assistant message id);
 * it is dropped when the reply is recorded (the ledger then holds the actual cost) and expires on its own
 * after a timeout when no reply is recorded (aborted replies, callers that never send an outlet). A hold made
 * in a chat is also settled by that chat's next turn (see HoldChat), and by a recorded reply of that chat whose
 * message id holds nothing (ReleaseOptions.orChat).
 *
 * Amounts are held in whole nano-dollars (1e-9 USD, rounded up): exact for any cap a person sets, and
 * small integers that both SQLite and Redis add exactly.
 */

/** One cap the hold is checked against: the ledger's counter period (`m:2026-11`, `d:2026-11-05`) and its limit. */
export interface HoldCap {
  period: string;
  /** The cap in USD, an exact decimal string. */
  limit: string;
  /**
   * The shared scope the cap is on (`g:<group>`, `m:<pattern>`, `g:<group>|m:<pattern>`, see spend-scopes.ts): checked
   * against the scope's recorded spend and the live holds of all its members; absent = the user's own spend and holds.
   */
  scope?: string;
}

/**
 * Where a held request sits in an Open WebUI chat. Open WebUI's chat page sends a chat's turns one after another
 * (a message typed during a reply waits in its queue, or stops the reply); the replies of one turn to several
 * selected models are sent at once, all answering the same user message (`parent_id`), each with its own assistant
 * message id. So a request of a new turn of a chat ends a request of an earlier turn: the oldest hold of the same chat
 * made for another turn is settled; the holds of the same turn stay (its replies to other models, and concurrent
 * requests that share a turn, such as a burst of API calls in one chat). A regenerated reply answers the same turn:
 * the reply it replaces is settled by its outlet, else by the chat's next turn or its timeout.
 *
 * The chat's order is the client's word: a caller that sent several turns of a chat at once would free each earlier
 * turn's room while its reply runs. So one hold at a time is ended this way, and while a user has an ended hold whose
 * reply is neither recorded nor expired, no other turn ends one: what runs unheld is at most one request's estimate.
 */
export interface HoldChat {
  /** Open WebUI's chat id (`metadata.chat_id`). */
  id: string;
  /** The user message the reply answers (`metadata.parent_message_id`), else `users:<n>`, the count of user messages. */
  turn: string;
  /**
   * The requested model (`body.model`). A reply settles by its chat (ReleaseOptions.orChat) only a hold of its own
   * model: the reply of a model the caps leave out (held nothing) must not free a capped reply's room of its turn.
   */
  model?: string;
}

/** What the spend-limit inlet asks the store to hold. */
export interface HoldRequest {
  userId: string;
  /** The reservation id: the assistant message id, or `req:<request id>` (see inletReservationId). */
  id: string;
  /** The request's chat and turn (see HoldChat); absent for callers without a chat id. */
  chat?: HoldChat;
  /** Estimated cost in USD (exact decimal string; rounded up to whole nano-dollars when held). */
  amount: string;
  caps: readonly HoldCap[];
  /** Epoch ms of the caller's clock: holds with `expiresAt <= now` no longer count and are dropped. */
  now: number;
  /** Epoch ms after which this hold no longer counts. */
  expiresAt: number;
}

/** The answer of a hold: admitted or not, and where each cap stands. */
export interface HoldOutcome {
  admitted: boolean;
  /** Index in `caps` of the first cap that has no room (when not admitted). */
  blockedBy?: number;
  /** Recorded spend of each cap's period (exact decimal strings, aligned with `caps`). */
  spent: string[];
  /** The user's live holds in USD after this call (including this one when admitted), exact decimal string. */
  held: string;
  /**
   * Only when a cap has a scope: the live holds each cap is checked against after this call (aligned with `caps`):
   * the user's for the user's caps, all the scope's members' for a scope's.
   */
  scopeHeld?: string[];
}

/**
 * The atomic part each backend implements (next to its usage store): check every cap against
 * recorded spend + live holds + this amount and, only when all have room, add the hold.
 */
export interface SpendHolds {
  /**
   * Atomically: drop expired holds; a cap has room when `spent + held < limit` and
   * `spent + held + amount <= limit` (`held` = the user's live holds); when every cap has room, hold
   * `amount` under `id` until `expiresAt`. The same id again adds to its hold (and keeps the later expiry):
   * requests that reuse a message id cannot free each other's room. With `chat`, first (whether or not the request
   * is then admitted) the hold of that chat this turn ends, if any (see HoldChat), is settled: it holds $0 from then on
   * but keeps its id until its reply is recorded or it expires, so the late outlet of that reply settles nothing else.
   * A cap with a scope is checked against the scope's recorded spend + the live holds of all its members, atomically
   * with the scope's other holds; the hold then holds `amount` under the user's id in each scope too, and releasing or
   * settling the user's hold (or its expiry) drops every scope's part. Scopes are checked after the user's own caps; a
   * scope that refuses gives back what the request held so far (a concurrent request may briefly see that room taken:
   * it is refused, never admitted past a cap).
   */
  reserve(request: HoldRequest): Promise<HoldOutcome>;
  /** Drop the user's holds with these ids (settled or abandoned); ids with no hold are ignored. Returns how many went. */
  release(userId: string, ids: readonly string[], options?: ReleaseOptions): Promise<number>;
}

/** Options of SpendHolds.release. */
export interface ReleaseOptions {
  /**
   * When none of the ids is held, release the user's oldest hold kept under a request id (`req:…`) instead:
   * a recorded reply whose request had no message id (an API caller's) settles one such hold, so those
   * requests count as in flight until a reply comes, not until their timeout.
   */
  orOldestRequestHold?: boolean;
  /**
   * When none of the ids is held, release one hold of the user made in this chat (for `model`) first: the one a turn
   * ended, if any (its turn is over, so a late reply is most likely its), else the oldest holding more than $0. A
   * recorded reply of a chat whose message id is not the one its inlet held (an outlet that reports another id)
   * settles one hold of that chat. Tried before `orOldestRequestHold`.
   */
  orChat?: string;
  /** The recorded reply's model: `orChat` settles only a hold made for it (or made without a model). */
  model?: string;
}

const NANO = 10n ** 9n;

/** The caps of a request without a scope (the user's own) and those with one, each with its index in `caps`. */
export function splitCaps(caps: readonly HoldCap[]): {
  own: Array<{ cap: HoldCap; index: number }>;
  scoped: Array<{ cap: HoldCap & { scope: string }; index: number }>;
} {
  const own: Array<{ cap: HoldCap; index: number }> = [];
  const scoped: Array<{ cap: HoldCap & { scope: string }; index: number }> = [];
  for (const [index, cap] of caps.entries()) {
    if (cap.scope) scoped.push({ cap: cap as HoldCap & { scope: string }, index });
    else own.push({ cap, index });
  }
  return { own, scoped };
}

/** The member id of a user's hold in a scope: user and hold id, apart by a character neither contains. */
export function scopeMember(userId: string, id: string): string {
  return `${userId}\u0000${id}`;
}

/** USD (exact decimal string) → whole nano-dollars, rounded up (a hold never under-reserves); malformed or negative → 0. */
export function toNano(amount: string): bigint {
  const value = parseDecimal(amount) ?? 0n;
  if (value <= 0n) return 0n;
  return (value + NANO - 1n) / NANO;
}

/** Whole nano-dollars → Decimal (1e-18 units). */
export function nanoToDecimal(nano: bigint | number): Decimal {
  return BigInt(nano) * NANO;
}

/**
 * The admission rule both backends apply (SQLite in JS with exact decimals, Redis in Lua on
 * nano-dollars): a cap has room for `amount` when what is already in use (recorded + held) is below it
 * and adding the amount does not pass it.
 */
export function hasRoom(spent: Decimal, held: Decimal, amount: Decimal, limit: Decimal): boolean {
  const inUse = spent + held;
  return compare(inUse, limit) < 0 && compare(inUse + amount, limit) <= 0;
}

/**
 * The reservation id of an inlet: the assistant message id Open WebUI puts in `metadata.message_id` (the
 * outlet carries it as `body.id`, the ledger records it as the record's message id); without one,
 * `req:<request id>` (what Eunoe's own filter chain and the openai-proxy share for a direct caller, whose
 * inlet and reply are one HTTP request).
 */
export function inletReservationId(body: Record<string, unknown>, requestId: string): string {
  const metadata = body.metadata;
  const messageId =
    metadata && typeof metadata === 'object' ? (metadata as Record<string, unknown>).message_id : undefined;
  return typeof messageId === 'string' && messageId ? messageId : requestReservationId(requestId);
}

/**
 * The chat and turn of an inlet (HoldChat), as `{ chat }` to spread into a HoldRequest; `{}` without a chat id (API
 * callers). Open WebUI's Pipelines inlet carries `metadata.chat_id` and `metadata.parent_message_id`; the generated
 * Function forwards the chat id but not the parent, so the turn is then the count of user messages in the request.
 */
export function inletHoldChat(body: Record<string, unknown>): { chat?: HoldChat } {
  const metadata = (body.metadata && typeof body.metadata === 'object' ? body.metadata : {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined);
  const id = text(metadata.chat_id) ?? text(body.chat_id);
  if (!id) return {};
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const users = messages.filter((message) => (message as { role?: unknown } | null)?.role === 'user').length;
  const turn = text(metadata.parent_message_id) ?? `users:${users}`;
  const model = text(body.model);
  return { chat: { id, turn, ...(model ? { model } : {}) } };
}

/** True when a hold made in `held` is settled by a recorded reply of `chat` and `model` (ReleaseOptions.orChat). */
export function settledByChat(held: HoldChat | undefined, chat: string, model: string | undefined): boolean {
  return held?.id === chat && (model === undefined || held.model === undefined || held.model === model);
}

/** True when a held request of `held` is ended by a new request of `next` (see HoldChat). */
export function endsHold(next: HoldChat, held: HoldChat | undefined): boolean {
  return held !== undefined && held.id === next.id && held.turn !== next.turn;
}

/** The prefix of the reservation id of a request without a message id. */
export const REQUEST_HOLD_PREFIX = 'req:';

/** The reservation id of a request without a message id. */
export function requestReservationId(requestId: string): string {
  return `${REQUEST_HOLD_PREFIX}${requestId}`;
}

/** The holds as a host service: a plain object with the two methods only (an isolated filter reaches nothing else). */
export function spendHoldsService(holds: SpendHolds | undefined): SpendHolds | undefined {
  return (
    holds && {
      reserve: (request) => holds.reserve(request),
      release: (userId, ids, options) => holds.release(userId, ids, options),
    }
  );
}

/**
 * Release the holds of a recorded reply (its actual cost is in the ledger now). Never throws: a hold that
 * cannot be released (the store is away) expires after its timeout, counting twice until then.
 */
export async function settleHolds(
  spend: SpendHolds | undefined,
  userId: string,
  ids: readonly string[],
  logger: { debug(details: object, message: string): void },
  options?: ReleaseOptions,
): Promise<void> {
  if (!spend) return;
  try {
    await spend.release(userId, ids, options);
  } catch (error) {
    logger.debug({ err: errorMessage(error), ids }, 'spend holds not released; they expire after their timeout');
  }
}
