import { formatDecimal, type Decimal } from '../../domain/pricing/decimal.js';
import { dayStart } from '../../domain/usage/day-range.js';
import { recordTotals } from '../../domain/usage/daily-usage.js';
import { addTotals, emptyTotals, groupKeyOf } from '../../domain/usage/usage-accumulator.js';
import type { DailyRow, Ledger } from '../../domain/usage/types.js';
import type { DayRange } from './range-query.js';

/** The tokens of a set of replies, and their count. */
export interface UnpricedTokens {
  records: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
}

/** One model's replies that have no cost (`costSource: unpriced`) in the range, and what they may have cost. */
export interface UnpricedModel extends UnpricedTokens {
  /** The model as the daily aggregates key it: its priced id, else the model Open WebUI sent. */
  model: string;
  /**
   * USD (exact decimal string): the model's cost per token on its priced or provider-reported replies of the
   * same range, times the unpriced replies' tokens (in + out); null when the range has none to learn from.
   */
  estimate: string | null;
  /** The priced or reported replies the estimate is learned from: their count, tokens (in + out) and cost. */
  basis: { records: number; tokens: number; cost: string } | null;
}

/** What `GET /usage/unpriced` answers. */
export interface UnpricedView extends DayRange {
  currency: 'USD';
  /** All unpriced replies of the range; `estimate` sums the models that have one. */
  totals: UnpricedTokens & { estimate: string | null; modelsWithoutEstimate: number };
  /** Models with unpriced replies, most replies first (ties by model). */
  models: UnpricedModel[];
}

const DAY = 86_400_000;

const tokensOf = (totals: UnpricedTokens): UnpricedTokens => ({
  records: totals.records,
  promptTokens: totals.promptTokens,
  completionTokens: totals.completionTokens,
  cachedTokens: totals.cachedTokens,
  cacheWriteTokens: totals.cacheWriteTokens,
  reasoningTokens: totals.reasoningTokens,
});

/**
 * The replies of the range that have no cost, per model, with an estimate of what they cost. Read from the daily
 * model aggregates: a model's day whose replies are all unpriced (or none) is taken whole; only a day that mixes
 * the two is read record by record (that model's records of that day), to tell its unpriced tokens from the
 * priced ones the estimate learns from.
 */
export async function unpricedView(ledger: Pick<Ledger, 'daily' | 'scan'>, range: DayRange): Promise<UnpricedView> {
  const rows = await ledger.daily(range.from, range.to, 'model');
  const byModel = new Map<string, DailyRow[]>();
  for (const row of rows) {
    let list = byModel.get(row.key);
    if (!list) byModel.set(row.key, (list = []));
    list.push(row);
  }
  const models: UnpricedModel[] = [];
  const estimates = new Map<string, Decimal>();
  for (const [model, days] of byModel) {
    if (!days.some((row) => row.totals.unpriced > 0)) continue;
    const unpriced = emptyTotals();
    const priced = emptyTotals();
    for (const row of days) {
      if (row.totals.unpriced === 0) addTotals(priced, row.totals);
      else if (row.totals.unpriced === row.totals.records) addTotals(unpriced, row.totals);
      else {
        const from = dayStart(row.day);
        await ledger.scan({ from, to: from + DAY, model }, (chunk) => {
          for (const record of chunk) {
            if (groupKeyOf(record, 'model') !== model) continue; // the model filter also matches other keys
            addTotals(record.costSource === 'unpriced' ? unpriced : priced, recordTotals(record));
          }
        });
      }
    }
    const basisTokens = priced.promptTokens + priced.completionTokens;
    const basis = priced.records > 0 ? { records: priced.records, tokens: basisTokens, cost: priced.cost } : null;
    const tokens = unpriced.promptTokens + unpriced.completionTokens;
    // Cost per token (in + out) of the priced replies, times the unpriced replies' tokens; truncated to 1e-18.
    const estimate = basis && basisTokens > 0 ? (basis.cost * BigInt(tokens)) / BigInt(basisTokens) : undefined;
    if (estimate !== undefined) estimates.set(model, estimate);
    models.push({
      model,
      ...tokensOf(unpriced),
      estimate: estimate === undefined ? null : formatDecimal(estimate),
      basis: basis && { ...basis, cost: formatDecimal(basis.cost) },
    });
  }
  models.sort((a, b) => b.records - a.records || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
  const totals = emptyTotals();
  let estimate: Decimal | null = null;
  for (const model of models) {
    addTotals(totals, { ...emptyTotals(), ...tokensOf(model) });
    const known = estimates.get(model.model);
    if (known !== undefined) estimate = (estimate ?? 0n) + known;
  }
  return {
    ...range,
    currency: 'USD',
    totals: {
      ...tokensOf(totals),
      estimate: estimate === null ? null : formatDecimal(estimate),
      modelsWithoutEstimate: models.filter((model) => model.estimate === null).length,
    },
    models,
  };
}
