import { decimalOf, type Decimal } from '../../domain/pricing/decimal.js';
import type { Ledger, UsageRecord } from '../../domain/usage/types.js';

/** Replies of a model its learned cost per token is taken over (the newest ones). */
export const LEARNED_REPLIES = 20;
/** How long a replica reuses a model's learned cost before reading the ledger again. */
export const LEARNED_TTL_MS = 60_000;
/** How long a replica remembers that a model had no reply with a reported cost (short: its first one may land any time). */
export const UNSEEN_TTL_MS = 5_000;
/** How far back the ledger is read for a model's replies. */
const LOOKBACK_MS = 30 * 24 * 60 * 60 * 1000;
/** Models whose cost a replica keeps (the oldest entry goes first). */
const MAX_MODELS = 10_000;

/**
 * The highest cost per token (USD, exact, rounded up) among the replies with a provider-reported cost
 * (`costSource: 'reported'`) and at least one token; undefined when there is none. The highest, not the mean: a
 * request is reserved at least at what any recent reply of the model cost per token, so a reply heavier in
 * (pricier) completion tokens than the average is still covered.
 */
export function costPerToken(records: readonly UsageRecord[]): Decimal | undefined {
  let highest: Decimal | undefined;
  for (const record of records) {
    const tokens = BigInt(Math.max(0, record.promptTokens) + Math.max(0, record.completionTokens));
    if (record.costSource !== 'reported' || tokens === 0n) continue;
    const cost = decimalOf(record.cost);
    if (cost <= 0n) continue;
    const rate = (cost + tokens - 1n) / tokens;
    if (highest === undefined || rate > highest) highest = rate;
  }
  return highest;
}

/**
 * What each model the price table does not know has been seen to cost per token, learned from its newest recorded
 * replies with a reported cost (one bounded page of the ledger), kept per replica for LEARNED_TTL_MS (UNSEEN_TTL_MS
 * while it has none). An unreadable ledger gives what was learned before, else undefined.
 */
export class LearnedCosts {
  /** Per model: until when the read is reused, and the read itself (concurrent inlets of one model share one read). */
  private readonly cache = new Map<string, { until: number; at: number; rate: Promise<Decimal | undefined> }>();

  rate(ledger: Ledger, model: string, now: number): Promise<Decimal | undefined> {
    const cached = this.cache.get(model);
    if (cached && now < cached.until && now >= cached.at) return cached.rate;
    const entry = { at: now, until: now + UNSEEN_TTL_MS, rate: Promise.resolve<Decimal | undefined>(undefined) };
    const previous = cached?.rate;
    entry.rate = read(ledger, model, now).then(
      (rate) => {
        if (rate !== undefined) entry.until = entry.at + LEARNED_TTL_MS;
        return rate;
      },
      // An unreadable ledger (a state timeout under load): what was learned before, if anything (else the fallback
      // valve applies), and the next inlet reads again.
      () => {
        entry.until = entry.at;
        return previous;
      },
    );
    this.cache.delete(model);
    this.cache.set(model, entry);
    if (this.cache.size > MAX_MODELS) this.cache.delete(this.cache.keys().next().value!);
    return entry.rate;
  }
}

async function read(ledger: Ledger, model: string, now: number): Promise<Decimal | undefined> {
  const page = await ledger.latest({ model, from: now - LOOKBACK_MS }, LEARNED_REPLIES);
  return costPerToken(page.records);
}
