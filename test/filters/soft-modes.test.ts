import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ModelIndex } from '../../src/domain/pricing/model-index.js';
import { parseModelList } from '../../src/domain/pricing/openrouter-schema.js';
import { buildPriceTable } from '../../src/domain/pricing/price-table.js';
import { createPricingLookup } from '../../src/domain/pricing/pricing-lookup.js';
import { decimalOf } from '../../src/domain/pricing/decimal.js';
import { dailyPeriod, monthlyPeriod } from '../../src/domain/usage/budget-periods.js';
import type { EffectiveCap } from '../../src/domain/usage/spend-caps.js';
import {
  cheaperModel,
  pastSoftThreshold,
  softFraction,
  softModeOf,
  type SoftModeSettings,
} from '../../src/features/spend-limit/soft-modes.js';
import { rateLimitFor, type RateLimitsValve } from '../../src/features/spend-limit/rate-limits.js';

const at = Date.parse('2026-12-05T10:00:00Z');
const daily: EffectiveCap = { period: dailyPeriod(at), limit: decimalOf(2) };
const monthly: EffectiveCap = { period: monthlyPeriod(at), limit: decimalOf(20) };

const settings = (values: Partial<SoftModeSettings>): SoftModeSettings => ({
  warn_fraction: 0.8,
  soft_fraction: null,
  soft_mode: 'warn',
  slow_requests_per_minute: 2,
  cheaper_models: {},
  ...values,
});

/** The bundled price table (pricing/openrouter-snapshot.json, OpenRouter's prices of 2025-12-02). */
const snapshot = parseModelList(JSON.parse(readFileSync('pricing/openrouter-snapshot.json', 'utf8')))!;
const table = buildPriceTable(snapshot.models, 'snapshot', 0);
const index = new ModelIndex(table.models, table.aliases);
const pricing = createPricingLookup(() => index);

describe('soft modes', () => {
  it('one mode for every cap, or one per cap kind (a kind not named warns)', () => {
    expect(softModeOf(settings({ soft_mode: 'slow' }), monthly)).toBe('slow');
    const perKind = settings({ soft_mode: { daily: 'cheaper' } });
    expect(softModeOf(perKind, daily)).toBe('cheaper');
    expect(softModeOf(perKind, monthly)).toBe('warn');
  });

  it('the threshold is soft_fraction, else warn_fraction; a cap is past it at exactly that share', () => {
    expect(softFraction(settings({}))).toBe(0.8);
    expect(softFraction(settings({ soft_fraction: 0.5 }))).toBe(0.5);
    // $1.60 of $2 is 80 %: past; $15.99 of $20 is not.
    expect(pastSoftThreshold([daily, monthly], [decimalOf('1.6'), decimalOf('15.99')], 0.8)).toEqual([0]);
    expect(pastSoftThreshold([daily], [decimalOf(2)], 0)).toEqual([]);
  });

  it('a cheaper model only when listed, on the same provider prefix, and priced', () => {
    const map = settings({
      cheaper_models: {
        'openai/gpt-4o': 'openai/gpt-4o-mini',
        'openrouter.openai/gpt-4o': 'openrouter.openai/gpt-4o-mini',
        'openai/gpt-4.1': 'anthropic/claude-3-haiku',
        'openai/o3': 'openai/o3-not-a-model',
      },
    });
    expect(cheaperModel(map, 'openai/gpt-4o', pricing)).toEqual({ model: 'openai/gpt-4o-mini' });
    // An Open WebUI connection prefix: the same connection, priced as its table id.
    expect(cheaperModel(map, 'openrouter.openai/gpt-4o', pricing)).toEqual({ model: 'openrouter.openai/gpt-4o-mini' });
    expect(cheaperModel(map, 'openai/gpt-4.1', pricing)).toEqual({
      none: 'anthropic/claude-3-haiku is not on the connection of openai/gpt-4.1 (another provider prefix)',
    });
    expect(cheaperModel(map, 'openai/o3', pricing)).toEqual({
      none: 'openai/o3-not-a-model has no price in the price table',
    });
    expect(cheaperModel(map, 'openai/gpt-4o-mini', pricing)).toEqual({
      none: 'cheaper_models names no cheaper model for openai/gpt-4o-mini',
    });
  });
});

describe('rate limit rules', () => {
  const valve: RateLimitsValve = {
    default: 30,
    roles: { user: 20, pending: 0 },
    groups: { Engineering: 60, 'g-interns': 10, Unlimited: 0 },
    users: { 'ann@example.com': 100, bob: 0 },
  };
  it('the user → the highest of their groups (0 = none is the highest) → the role → the default', () => {
    expect(rateLimitFor(valve, { id: 'x', email: 'ann@example.com', role: 'user' })).toEqual({
      perMinute: 100,
      source: 'your account',
    });
    expect(rateLimitFor(valve, { id: 'bob', role: 'user' })).toBeUndefined();
    const both = [
      { id: 'g-interns', name: 'Interns' },
      { id: 'g-eng', name: 'Engineering' },
    ];
    expect(rateLimitFor(valve, { id: 'c', role: 'user', groups: both })).toEqual({
      perMinute: 60,
      source: 'your group Engineering',
    });
    expect(rateLimitFor(valve, { id: 'c', role: 'user', groups: [{ id: 'g-interns' }] })).toEqual({
      perMinute: 10,
      source: 'your group g-interns',
    });
    expect(
      rateLimitFor(valve, { id: 'c', role: 'user', groups: [...both, { id: 'u', name: 'Unlimited' }] }),
    ).toBeUndefined();
    expect(rateLimitFor(valve, { id: 'd', role: 'user', groups: [] })).toEqual({ perMinute: 20, source: 'your role' });
    expect(rateLimitFor(valve, { id: 'e', role: 'pending' })).toBeUndefined();
    expect(rateLimitFor(valve, { id: 'f' })).toEqual({ perMinute: 30, source: 'everyone' });
  });
});
