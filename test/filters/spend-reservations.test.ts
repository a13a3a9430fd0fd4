import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { createAccountingFilter } from '../../src/features/accounting/accounting-filter.js';
import { FilterError } from '../../src/core/errors/index.js';
import { rejection } from './helpers/rejection.js';
import type { FilterBody, FilterEvent, HostServices, PipelineUser } from '../../src/runtime/host/types.js';
import { decimalOf } from '../../src/domain/pricing/decimal.js';
import { estimatePromptTokensBounded } from '../../src/features/spend-limit/estimate-request-cost.js';
import { createSpendLimitFilter } from '../../src/features/spend-limit/spend-limit-filter.js';
import type { StateStore } from '../../src/state/types.js';
import { monthlyPeriod } from '../../src/domain/usage/budget-periods.js';
import { formatCapUsd, formatSpendUsd } from '../../src/domain/usage/format-money.js';
import { tempDir, tempSqliteStore } from '../helpers/temp-store.js';
import { deleteRedisPrefix, redisReplica } from '../usage/helpers/ledger-fixtures.js';
import { hookArgs, realServices } from '../usage/helpers/hook-args.js';
import { usageRecord } from '../usage/helpers/usage-record.js';

/**
 * Spend caps are reserved, not just checked: each admitted request holds its estimated cost against the
 * caps atomically, the recorded reply settles it, a hold with no reply expires. Real SQLite files, real Redis.
 */

const MODEL = 'openai/gpt-4o'; // $2.50 / M prompt tokens, $10 / M completion tokens (the fixture price list)
const user: PipelineUser = { id: 'burst-user', email: 'burst@example.com', name: 'B', role: 'user' };
const T0 = Date.UTC(2026, 10, 20, 12);
const month = monthlyPeriod(T0);
const monthlyCap = { monthly_limit_usd: 0.1 };

/** One replica: its store, its host services, and its own spend-limit and accounting filters on one clock. */
interface Replica {
  store: StateStore;
  services: HostServices;
  limit: ReturnType<typeof createSpendLimitFilter>;
  accounting: ReturnType<typeof createAccountingFilter>;
}

let clock = T0;
const now = () => clock;

async function replicaOn(store: StateStore): Promise<{ replica: Replica; remove: () => void }> {
  const { dir, remove } = tempDir('eunoe-reserve-pricing-');
  const { services, pricing } = await realServices(store, dir);
  return {
    replica: {
      store,
      services,
      limit: createSpendLimitFilter({ now }),
      accounting: createAccountingFilter({ now }),
    },
    remove: () => {
      void pricing.stop();
      remove();
    },
  };
}

/**
 * A chat request whose estimate is exactly `usd`: a prompt of P tokens (P a multiple of 4, so P × $2.5e-6 is
 * a whole number of $1e-5) and max_tokens M with P × 2.5e-6 + M × 1e-5 = usd.
 */
function requestCosting(messageId: string, usd: number, words = 200): Record<string, unknown> {
  let text = 'The quarterly report lists revenue by region and the notes explain each change. '.repeat(words / 10);
  let messages = [{ role: 'user', content: text }];
  let prompt = estimatePromptTokensBounded(messages, MODEL);
  while (prompt % 4 !== 0) {
    text += ' a';
    messages = [{ role: 'user', content: text }];
    prompt = estimatePromptTokensBounded(messages, MODEL);
  }
  const maxTokens = Math.round(usd * 100_000 - prompt / 4);
  expect(maxTokens).toBeGreaterThan(0);
  return { model: MODEL, max_tokens: maxTokens, messages, metadata: { chat_id: 'c1', message_id: messageId } };
}

async function inlet(
  replica: Replica,
  body: Record<string, unknown>,
  valves: Record<string, unknown> = monthlyCap,
  emit?: (event: FilterEvent) => void,
  requestId = `inlet-${randomUUID()}`,
) {
  return replica.limit.inlet!({
    ...hookArgs(replica.limit, {
      body,
      user,
      store: replica.store,
      services: replica.services,
      valves,
      hook: 'inlet',
      filterId: 'spend-limit',
      emit,
    }),
    requestId,
  });
}

/** The reply's outlet through the accounting filter, with the provider's usage. */
async function reply(
  replica: Replica,
  request: Record<string, unknown>,
  usage: { prompt_tokens: number; completion_tokens: number },
  replyId?: string,
) {
  const messageId = replyId ?? (request.metadata as { message_id: string }).message_id;
  const body: FilterBody = {
    model: MODEL,
    id: messageId,
    chat_id: 'c1',
    messages: [
      ...(request.messages as NonNullable<FilterBody['messages']>),
      {
        id: messageId,
        role: 'assistant',
        content: `reply ${messageId}`,
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      },
    ],
  };
  return replica.accounting.outlet!({
    ...hookArgs(replica.accounting, {
      body,
      user,
      store: replica.store,
      services: replica.services,
      hook: 'outlet',
      filterId: 'accounting',
    }),
    requestId: `outlet-${randomUUID()}`,
  });
}

const seed = (replica: Replica, cost: string, overrides: Parameters<typeof usageRecord>[0] = {}) =>
  replica.services.ledger!.record(
    usageRecord({ messageId: `seed-${randomUUID()}`, userId: user.id!, cost, time: T0 - 3_600_000, ...overrides }),
  );
const spentThisMonth = async (replica: Replica) =>
  Number(await replica.services.ledger!.spent(user.id!, month.from, month.to));

/**
 * `count` requests at once, each estimated at $0.0075, spread over the replicas; every admitted one then
 * gets its reply (on another replica), with 3 % more prompt tokens than estimated and the full max_tokens:
 * each actual cost is a little above its estimate. Returns how many were admitted and the month's spend.
 */
async function burst(replicas: Replica[], count: number): Promise<{ admitted: number; spent: number }> {
  const requests = Array.from({ length: count }, (_, index) =>
    requestCosting(`burst-${randomUUID()}-${index}`, 0.0075),
  );
  const outcomes = await Promise.allSettled(
    requests.map((request, index) => inlet(replicas[index % replicas.length]!, request)),
  );
  const admitted = requests.filter((_, index) => outcomes[index]!.status === 'fulfilled');
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') {
      expect(outcome.reason).toBeInstanceOf(FilterError);
      expect((outcome.reason as FilterError).status).toBe(429);
    }
  }
  await Promise.all(
    admitted.map((request, index) => {
      const prompt = estimatePromptTokensBounded(request.messages as unknown[], MODEL);
      return reply(replicas[(index + 1) % replicas.length]!, request, {
        prompt_tokens: Math.ceil(prompt * 1.03),
        completion_tokens: request.max_tokens as number,
      });
    }),
  );
  return { admitted: admitted.length, spent: await spentThisMonth(replicas[0]!) };
}

describe('spend caps are reserved (SQLite)', () => {
  let replica: Replica;
  let dispose: () => Promise<void>;
  beforeEach(async () => {
    clock = T0;
    const temp = await tempSqliteStore('eunoe-reserve-');
    const made = await replicaOn(temp.store);
    replica = made.replica;
    dispose = async () => {
      made.remove();
      await temp.dispose();
    };
  });
  afterEach(async () => dispose());

  it('32 requests at once at $0.0975 of a $0.10 cap: the month ends within 105 % of the cap', async () => {
    await seed(replica, '0.0975');
    const { admitted, spent } = await burst([replica], 32);
    expect(admitted).toBe(0); // $0.0025 left: no $0.0075 request fits
    expect(spent / 0.1).toBeLessThanOrEqual(1.05);
  });

  it('32 requests at once with room for 4: exactly 4 pass and the month ends within 105 % of the cap', async () => {
    await seed(replica, '0.07');
    const { admitted, spent } = await burst([replica], 32);
    expect(admitted).toBe(4);
    expect(spent).toBeGreaterThan(0.099);
    expect(spent / 0.1).toBeLessThanOrEqual(1.05);
  });

  it('32 requests at once reusing one message id: each still holds its own estimate (4 pass)', async () => {
    await seed(replica, '0.07');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 32 }, () => inlet(replica, requestCosting('reused-id', 0.0075))),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(4);
  });

  it('a held request counts until its reply is recorded, then only its actual cost counts', async () => {
    await seed(replica, '0.088');
    const first = requestCosting('first', 0.0075);
    await inlet(replica, first);
    // In flight: $0.088 + $0.0075 held; another $0.0075 does not fit.
    const second = await rejection(inlet(replica, requestCosting('second', 0.0075)));
    expect(second.status).toBe(429);
    expect(second.message).toBe(
      "Your monthly budget of $0.10 has $0.0045 left, less than this request's estimated $0.0075; it resets on 1 December.",
    );
    // The reply costs $0.00035 (100 prompt, 10 completion tokens): recorded, the hold is settled.
    await reply(replica, first, { prompt_tokens: 100, completion_tokens: 10 });
    expect(await replica.services.ledger!.spent(user.id!, month.from, month.to)).toBe('0.08835');
    const events: FilterEvent[] = [];
    await inlet(replica, requestCosting('third', 0.0075), monthlyCap, (event) => events.push(event));
    // $0.08835 recorded + $0.0075 held for the third: the first's estimate no longer counts.
    expect(events).toEqual([
      { type: 'status', data: { description: 'spend: $0.0959 of $0.10 monthly cap (95 %)', done: true } },
    ]);
  });

  it('a hold with no reply is released after reservation_timeout_s (injected clock)', async () => {
    await seed(replica, '0.088');
    const valves = { ...monthlyCap, reservation_timeout_s: 600 };
    await inlet(replica, requestCosting('abandoned', 0.0075), valves); // no outlet ever comes
    clock = T0 + 599_000;
    await rejection(inlet(replica, requestCosting('while-held', 0.0075), valves));
    clock = T0 + 600_000;
    await expect(inlet(replica, requestCosting('after-timeout', 0.0075), valves)).resolves.toBeDefined();
  });

  it('without a message id (an API caller): held until a reply of that user is recorded, not matched by id', async () => {
    await seed(replica, '0.088');
    const api = (id: string) => {
      const request = requestCosting(id, 0.0075);
      return { ...request, metadata: { chat_id: 'c1' } };
    };
    const first = api('no-id-1');
    await inlet(replica, first);
    await rejection(inlet(replica, api('no-id-2')));
    // The reply comes with an id the inlet never saw: it settles the oldest hold kept under a request id.
    await reply(replica, first, { prompt_tokens: 100, completion_tokens: 10 }, 'api-reply-1');
    await expect(inlet(replica, api('no-id-3'))).resolves.toBeDefined(); // $0.08835 + $0.0075 in use
    // The same reply's outlet again (already recorded) settles nothing more: $0.01 still does not fit.
    await reply(replica, first, { prompt_tokens: 100, completion_tokens: 10 }, 'api-reply-1');
    await rejection(inlet(replica, { ...requestCosting('no-id-4', 0.01), metadata: { chat_id: 'c1' } }));
  });

  it('a rejected request reserves nothing', async () => {
    await seed(replica, '0.09');
    const big = await rejection(inlet(replica, requestCosting('big', 0.02)));
    expect(big.message).toMatch(/has \$0\.0100 left, less than this request's estimated \$0\.0200/);
    // Had the rejected $0.02 been held, $0.0095 would not fit in the $0.01 left.
    await expect(inlet(replica, requestCosting('small', 0.0095))).resolves.toBeDefined();
    await rejection(inlet(replica, requestCosting('one-more', 0.001)));
  });

  it('near a cap the inlet reports a status line; below the warning fraction it does not', async () => {
    await seed(replica, '0.07');
    const events: FilterEvent[] = [];
    await inlet(replica, requestCosting('a', 0.0075), monthlyCap, (event) => events.push(event));
    expect(events).toEqual([]); // $0.0775: 77 %
    await inlet(replica, requestCosting('b', 0.0075), monthlyCap, (event) => events.push(event));
    expect(events).toEqual([
      { type: 'status', data: { description: 'spend: $0.0850 of $0.10 monthly cap (85 %)', done: true } },
    ]);
    const quiet: FilterEvent[] = [];
    await inlet(replica, requestCosting('c', 0.0075), { ...monthlyCap, warn_fraction: 0 }, (event) =>
      quiet.push(event),
    );
    expect(quiet).toEqual([]);
  });

  it('a $0.005 cap is shown as $0.005, not $0.01', async () => {
    await seed(replica, '0.005');
    clock = T0;
    const error = await rejection(inlet(replica, requestCosting('tiny', 0.001), { daily_limit_usd: 0.005 }));
    expect(error.message).toBe('Your daily budget of $0.005 is used up; it resets at 00:00 UTC.');
  });

  it('without max_tokens: the valve when the user has no chat replies, then their recent median', async () => {
    // $0.002 left. Spent by a background task (not a chat reply): the 2,000-token valve applies ($0.02).
    await seed(replica, '0.098', { task: 'title_generation', completionTokens: 5000 });
    const valves = { ...monthlyCap, expected_completion_tokens: 2000 };
    const body = (id: string) => ({
      model: MODEL,
      messages: [{ role: 'user', content: 'hi' }],
      metadata: { chat_id: 'c1', message_id: id },
    });
    expect((await rejection(inlet(replica, body('m1'), valves))).message).toMatch(/estimated \$0\.0200/);
    // Chat replies of 10 completion tokens: after the per-replica cache (60 s), their median is expected.
    await seed(replica, '0', { completionTokens: 10 });
    await seed(replica, '0', { completionTokens: 10 });
    clock = T0 + 61_000;
    await expect(inlet(replica, body('m2'), valves)).resolves.toBeDefined();
    // A background task is never blocked and holds nothing.
    const task = { ...body('m3'), metadata: { chat_id: 'c1', task: 'title_generation' } };
    await expect(inlet(replica, task, valves)).resolves.toEqual(task);
  });
});

describe('money formatting', () => {
  it('caps show the digits they have (at least 2), spend at least as many as its cap', () => {
    expect(formatCapUsd(decimalOf('0.005'))).toBe('$0.005');
    expect(formatCapUsd(decimalOf('0.1'))).toBe('$0.10');
    expect(formatCapUsd(decimalOf('20'))).toBe('$20.00');
    expect(formatCapUsd(decimalOf('0.0125'))).toBe('$0.0125');
    expect(formatSpendUsd(decimalOf('0.085'), 2)).toBe('$0.0850');
    expect(formatSpendUsd(decimalOf('12.345'))).toBe('$12.35');
    expect(formatSpendUsd(decimalOf('0.000003'))).toBe('$0.000003');
  });
});

const redisUrl = inject('redisUrl');
const filePrefix = `eunoe-test-reserve:${randomUUID()}:`;

describe.runIf(redisUrl)('spend caps are reserved across two replicas on one Redis', () => {
  afterAll(() => deleteRedisPrefix(redisUrl, filePrefix));

  it('32 requests at once over two replicas, with room for 4: exactly 4 pass, the month ends within 105 %', async () => {
    clock = T0;
    const prefix = `${filePrefix}burst:`;
    const stores = [await redisReplica(redisUrl, prefix), await redisReplica(redisUrl, prefix)];
    const made = await Promise.all(stores.map((store) => replicaOn(store)));
    try {
      const replicas = made.map((entry) => entry.replica);
      await seed(replicas[0]!, '0.07');
      const { admitted, spent } = await burst(replicas, 32);
      expect(admitted).toBe(4);
      expect(spent / 0.1).toBeLessThanOrEqual(1.05);
    } finally {
      for (const entry of made) entry.remove();
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('at $0.0975 of $0.10, 32 at once over two replicas: none fits, the month stays under the cap', async () => {
    clock = T0;
    const prefix = `${filePrefix}full:`;
    const stores = [await redisReplica(redisUrl, prefix), await redisReplica(redisUrl, prefix)];
    const made = await Promise.all(stores.map((store) => replicaOn(store)));
    try {
      const replicas = made.map((entry) => entry.replica);
      await seed(replicas[0]!, '0.0975');
      const { admitted, spent } = await burst(replicas, 32);
      expect(admitted).toBe(0);
      expect(spent / 0.1).toBeLessThanOrEqual(1.05);
      // A hold with no reply expires after its timeout on the Redis replicas too.
      await inlet(replicas[1]!, requestCosting('small', 0.0005, 10));
      await rejection(inlet(replicas[0]!, requestCosting('small-2', 0.0025, 10)));
      clock = T0 + 600_000;
      await expect(inlet(replicas[0]!, requestCosting('small-3', 0.0025, 10))).resolves.toBeDefined();
    } finally {
      for (const entry of made) entry.remove();
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});
