/**
 * The services the shipped features provide, their keys and their types, declared apart from the features: a filter
 * reads one with `provided(services, contextStatsService)` through `eunoe` without loading the feature behind it, and
 * a feature reads another's (the dashboard the context statistics, the proxy the reply claims) without importing it.
 * The features provide them at startup (src/features/context/feature.ts, src/features/accounting/feature.ts).
 */
import { serviceKey } from './service-registry.js';
import type { ModelIds } from '../../domain/usage/spend-caps.js';

/** What one context inlet did, in numbers only (never chat text). */
export interface ContextInletStats {
  tokensBefore: number;
  tokensAfter: number;
  kept: number;
  summarized: number;
  dropped: number;
  summarizerCalls: number;
  cacheHits: number;
}

/** One UTC day of context statistics: the sums of its inlets. */
export interface ContextStatsDay extends ContextInletStats {
  day: string;
  inlets: number;
}

/** Per-day context statistics: the context filter records, the dashboard reads. */
export interface ContextStats {
  /** Add one inlet's numbers to its UTC day (buffered; written to the store's atomic counters by `flush`). */
  record(stats: ContextInletStats, time?: number): Promise<void>;
  /** Every UTC day in [fromDay, toDay), oldest first, zero-filled (what is buffered is written first). */
  daily(fromDay: string, toDay: string): Promise<ContextStatsDay[]>;
  /** Writes the buffered sums to the store now (at shutdown; reads do it themselves). */
  flush(): Promise<void>;
}

/** Who accounts a proxied reply: the proxy pipe (when the reply ends) or the accounting filter's outlet. */
export type ReplySide = 'proxy' | 'outlet';

/**
 * Pairs the two accountings of one proxied reply, so the ledger gets it once whichever comes first.
 * Both sides name the reply by `replyFingerprint(user id, model id, reply text)` (src/domain/usage/reply-fingerprint.ts).
 */
export interface ReplyClaims {
  /** `side` is about to record the reply: true when the other side already recorded it (record nothing). */
  claim(fingerprint: string, side: ReplySide): Promise<boolean>;
}

/** The context filter's per-day statistics (the filter records each inlet, the dashboard reads the days). */
export const contextStatsService = serviceKey<ContextStats>('context.stats');
/** Reply claims: pair the `openai-proxy`'s and the accounting outlet's records of one proxied reply. */
export const replyClaimsService = serviceKey<ReplyClaims>('accounting.reply-claims');

/** One spend cap in force for a user: its period and its limit in USD (an exact decimal string). */
export interface SpendCapInForce {
  kind: 'daily' | 'monthly';
  limit: string;
  /** The shared scope the cap is on (a group `g:<group>`, a model pattern `m:<pattern>`); absent = the user's own. */
  scope?: string;
  /** Whose budget, in words a message starts with: "Your monthly budget", "Your group 'Research' daily budget". */
  subject?: string;
}

/** The user a cap is looked up for (`groups` as the hook's user object carries them, see PipelineUser). */
export interface SpendCapUser {
  id?: string;
  email?: string;
  role?: string;
  groups?: unknown;
}

/** The caps the loaded spend-limit filter's valves put on a user (none when no such filter is loaded or the role is exempt). */
export interface SpendCaps {
  /** The user's own caps first (monthly, then daily), then those of the user's groups (and, with `model`, its patterns'). */
  capsFor(user: SpendCapUser, now: number, model?: ModelIds): Promise<SpendCapInForce[]>;
  /**
   * The shared scopes a reply of `user` to `model` recorded now counts toward (UsageRecord.scopes): the accounting
   * outlet and the openai-proxy set them on the record, so the store counts its cost toward each scope's spend in the
   * same write, whether or not its hold is still live. `model`: the ids it names and is priced as (ModelIds). Empty
   * when no spend-limit filter is loaded.
   */
  scopesFor(user: SpendCapUser, model: ModelIds, now: number): Promise<string[]>;
}

/** The spend-limit filter's caps per user, read from its valves (the accounting outlet's cost status line reads them). */
export const spendCapsService = serviceKey<SpendCaps>('spend-limit.caps');

/** A reply the spend-limit inlet sent to a cheaper model (a cap's `cheaper` soft mode): the model asked for and the one used. */
export interface ModelSwitch {
  requested: string;
  served: string;
}

/**
 * The model switches of the spend-limit filter, by the reply's message id (Open WebUI's `metadata.message_id`): the
 * inlet records one, the accounting outlet reads it to price the reply as the model that answered and to record both
 * ids (Open WebUI's outlet body names the chat's model, the requested one). Kept a day.
 *
 * Eunoe's openai-proxy records the replies it serves itself, from a request that carries no message id (Open WebUI
 * drops `metadata` from what it sends a connection): it claims the user's oldest unclaimed switch to the model it
 * serves (`claimServed`), each switch once, within `SWITCH_CLAIM_MS` of the inlet.
 */
export interface ModelSwitches {
  /** Keep a switch by message id, and as unclaimed for `userId` and the served model. */
  record(messageId: string, change: ModelSwitch, userId?: string): Promise<void>;
  find(messageId: string): Promise<ModelSwitch | undefined>;
  /**
   * The switch of the reply `messageId` when given and kept, else the oldest unclaimed switch of `userId` to `served`
   * made within `SWITCH_CLAIM_MS`; either way claimed (a second call does not get it). Undefined when none.
   */
  claimServed(userId: string, served: string, messageId?: string): Promise<ModelSwitch | undefined>;
}

/** How long after the inlet a switch can be claimed by the proxy that serves it: Open WebUI calls the model at once. */
export const SWITCH_CLAIM_MS = 300_000;

/** The spend-limit filter's model switches (the accounting outlet reads them). */
export const modelSwitchesService = serviceKey<ModelSwitches>('spend-limit.model-switches');
