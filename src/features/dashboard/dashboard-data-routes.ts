import { Router } from 'express';
import { z } from 'zod';
import { ValidationError } from '../../core/errors/index.js';
import type { ContextStats } from '../../runtime/host/shipped-service-keys.js';
import { capsView } from './caps-view.js';
import { parseDayRange } from './range-query.js';
import { withFreshness } from './price-freshness.js';
import { unpricedView } from './unpriced-view.js';
import type { ModuleRegistry } from '../../runtime/host/module-registry.js';
import type { PricingService } from '../../runtime/pricing/pricing-service.js';
import type { StateStore } from '../../state/types.js';
import { buildDailySeries } from '../../domain/usage/daily-series.js';
import type { Ledger } from '../../domain/usage/types.js';
import { VERSION } from '../../core/version.js';
import { moduleTypeOf } from '../../runtime/host/declared-kind.js';
import { knownQuery } from '../../runtime/http/known-query.js';

/** The day-range parameters (`parseDayRange`). */
const RANGE = ['from', 'to', 'days', 'month'];

/** What the dashboard's JSON endpoints read. */
export interface DashboardDataDeps {
  ledger: Ledger;
  contextStats?: ContextStats;
  registry: Pick<ModuleRegistry, 'list' | 'failures'>;
  store: Pick<StateStore, 'health' | 'backend'>;
  pricing?: Pick<PricingService, 'status'>;
  now?: () => number;
}

const groupBy = z.enum(['user', 'model']).optional();

/**
 * The dashboard's JSON endpoints, usable on their own (all GET, all read-only):
 * - `/usage/daily?from=&to=|days=|month=&group_by=user|model`: spend and tokens per UTC day
 *   (zero-filled), totals and per-group totals, exact decimals as strings; read from the daily
 *   aggregates the ledger writes with each record.
 * - `/usage/context?…range`: context filter statistics per UTC day (tokens before/after, messages), with the
 *   ledger's prompt tokens and cached (prompt-cache read) tokens of the day and their share.
 * - `/usage/unpriced?…range`: replies without a cost per model (count, tokens) and an estimate learned from the
 *   model's priced or reported replies of the range.
 * - `/usage/caps`: every capped user's spend, cap, percent used, reset time, a monthly cap's pace (projected month-end
 *   spend, the day it is passed); who is blocked, who will pass a monthly cap this month.
 * - `/status`: filters (loaded / failed with errors), state backend, price table age (flagged when stale) and last
 *   refresh, version.
 */
export function dashboardDataRouter(deps: DashboardDataDeps): Router {
  const now = deps.now ?? (() => Date.now()); // read at each call (a test that fakes Date moves it)
  const router = Router();
  router.get('/usage/daily', knownQuery(...RANGE, 'group_by'), async (request, response) => {
    const range = parseDayRange(request.query, now());
    const grouping = groupBy.safeParse(request.query.group_by);
    if (!grouping.success)
      throw new ValidationError('Invalid range: group_by: must be user or model', [
        { path: 'group_by', message: 'must be user or model' },
      ]);
    const [totalRows, groupRows] = await Promise.all([
      deps.ledger.daily(range.from, range.to, 'all'),
      grouping.data ? deps.ledger.daily(range.from, range.to, grouping.data) : undefined,
    ]);
    response.json(buildDailySeries({ ...range, groupBy: grouping.data, totalRows, groupRows }));
  });
  router.get('/usage/context', knownQuery(...RANGE), async (request, response) => {
    const range = parseDayRange(request.query, now());
    const [stats, ledgerRows] = await Promise.all([
      deps.contextStats ? deps.contextStats.daily(range.from, range.to) : [],
      deps.ledger.daily(range.from, range.to, 'all'),
    ]);
    // The ledger's prompt tokens and the share of them the providers read from their prompt cache, per day.
    const billed = new Map(ledgerRows.map((row) => [row.day, row.totals]));
    const days = stats.map((day) => ({
      ...day,
      promptTokens: billed.get(day.day)?.promptTokens ?? 0,
      cachedTokens: billed.get(day.day)?.cachedTokens ?? 0,
    }));
    const totals = { inlets: 0, tokensBefore: 0, tokensAfter: 0, kept: 0, summarized: 0, dropped: 0 };
    const more = { summarizerCalls: 0, cacheHits: 0, promptTokens: 0, cachedTokens: 0 };
    for (const day of days) {
      for (const field of Object.keys(totals) as Array<keyof typeof totals>) totals[field] += day[field];
      for (const field of Object.keys(more) as Array<keyof typeof more>) more[field] += day[field];
    }
    const saved = totals.tokensBefore > 0 ? 1 - totals.tokensAfter / totals.tokensBefore : 0;
    const cached = more.promptTokens > 0 ? more.cachedTokens / more.promptTokens : 0;
    response.json({
      ...range,
      totals: {
        ...totals,
        ...more,
        savedShare: Math.round(saved * 1000) / 1000,
        cachedShare: Math.round(cached * 1000) / 1000,
      },
      days,
    });
  });
  router.get('/usage/unpriced', knownQuery(...RANGE), async (request, response) => {
    response.json(await unpricedView(deps.ledger, parseDayRange(request.query, now())));
  });
  router.get('/usage/caps', knownQuery(), async (_request, response) => {
    response.json(await capsView({ filters: deps.registry.list(), ledger: deps.ledger, now: now() }));
  });
  router.get('/status', (_request, response) => {
    const loaded = deps.registry.list().map((filter) => ({
      id: filter.id,
      name: filter.name,
      type: moduleTypeOf(filter),
      file: filter.file.split('/').pop(),
      status: 'loaded',
      error: null,
      isolation: filter.isolation ?? 'main',
      priority: filter.valves.priority,
      pipelines: filter.valves.pipelines,
    }));
    const failed = deps.registry.failures().map((failure) => ({
      id: failure.id,
      name: failure.id,
      type: failure.kind,
      file: failure.file.split('/').pop(),
      status: 'failed',
      error: failure.error,
      line: failure.line ?? null,
    }));
    response.json({
      version: VERSION,
      at: new Date(now()).toISOString(),
      store: deps.store.health(),
      pricing: deps.pricing ? withFreshness(deps.pricing.status()) : null,
      filters: [...loaded, ...failed],
    });
  });
  return router;
}
