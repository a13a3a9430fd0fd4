import { describe, expect, it } from 'vitest';
import { contextOptions } from '../../src/features/context/context-options.js';
import { contextValves, type ContextValves } from '../../src/features/context/context-valves.js';
import { createActiveFlags } from '../../src/domain/flags/index.js';

const valves = (overrides: Partial<ContextValves> = {}): ContextValves =>
  contextValves.parse({
    max_tokens: 4000,
    recency_factor: 0.25,
    summary_base_url: 'http://127.0.0.1:1/v1',
    summary_model: 'mini',
    summary_min_budget: 1500,
    ...overrides,
  });
const noFlags = createActiveFlags({
  chatKey: 'c',
  persistent: {},
  temporary: {},
  marks: {},
  notices: [],
  source: 'none',
});
const user = { max_tokens: null, recent: null };

describe('contextOptions', () => {
  it.each([
    { max_tokens: 4000, user: null, summarize: true },
    { max_tokens: 1500, user: null, summarize: true },
    { max_tokens: 1000, user: null, summarize: undefined },
    { max_tokens: 4000, user: 800, summarize: undefined },
    { max_tokens: 0, user: null, summarize: true },
  ])(
    'summaries only from summary_min_budget up: admin $max_tokens, user $user → $summarize',
    ({ max_tokens, user: userMax, summarize }) => {
      const options = contextOptions(valves({ max_tokens }), { ...user, max_tokens: userMax }, noFlags);
      expect(options.summarize).toBe(summarize);
    },
  );

  it('a user may only lower the admin budget; null keeps the admin value', () => {
    expect(contextOptions(valves({ max_tokens: 4000 }), { max_tokens: 9000, recent: null }, noFlags).maxTokens).toBe(
      4000,
    );
    expect(contextOptions(valves({ max_tokens: 4000 }), { max_tokens: 2000, recent: null }, noFlags).maxTokens).toBe(
      2000,
    );
    expect(contextOptions(valves({ max_tokens: 0 }), { max_tokens: 2000, recent: 0 }, noFlags)).toMatchObject({
      maxTokens: 2000,
      recent: 0,
    });
  });
});

describe('!full and the admin', () => {
  const full = createActiveFlags({ chatKey: 'c', temporary: { full: true } });
  it('lifts the budget by default', () => {
    expect(contextOptions(valves(), user, full).full).toBe(true);
  });
  it('does nothing when the admin turned allow_full off', () => {
    expect(contextOptions(valves({ allow_full: false }), user, full).full).toBeUndefined();
  });
});
