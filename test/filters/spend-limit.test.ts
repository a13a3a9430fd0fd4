import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSpendLimitFilter } from 'eunoe/shipped';
import spendLimitDefault from '../../filters/spend-limit.js';
import { rejection } from './helpers/rejection.js';
import type { PipelineUser } from '../../src/runtime/host/types.js';
import type { StateStore } from '../../src/state/types.js';
import { createLedger } from '../../src/runtime/usage/ledger.js';
import type { Ledger } from '../../src/domain/usage/types.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { hookArgs } from '../usage/helpers/hook-args.js';
import { usageRecord } from '../usage/helpers/usage-record.js';

let store: StateStore;
let ledger: Ledger;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ store, dispose: cleanup } = await tempSqliteStore());
  ledger = createLedger(store);
});
afterEach(async () => cleanup());

const user: PipelineUser = { id: 'u1', email: 'ann@example.com', name: 'Ann', role: 'user' };
const chatBody = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], metadata: { chat_id: 'c1' } };

async function inlet(
  now: number,
  options: { valves?: Record<string, unknown>; user?: PipelineUser; body?: Record<string, unknown> } = {},
) {
  const filter = createSpendLimitFilter({ now: () => now });
  return filter.inlet!(
    hookArgs(filter, {
      body: options.body ?? chatBody,
      user: options.user ?? user,
      store,
      services: { ledger },
      valves: options.valves,
      hook: 'inlet',
      filterId: 'spend-limit',
    }),
  );
}
const spend = (id: string, cost: string, time: number, userId = 'u1') =>
  ledger.record(usageRecord({ messageId: id, userId, cost, time }));

describe('spend limits', () => {
  const nov = (day: number, hour = 12) => Date.UTC(2026, 10, day, hour);

  it('blocks with 429 once the monthly budget is used up, and resets on the 1st', async () => {
    const valves = { monthly_limit_usd: 20 };
    await spend('m1', '12.5', nov(3));
    await spend('m2', '7.49', nov(20));
    await spend('old', '100', Date.UTC(2026, 9, 31, 23, 59));
    expect(await inlet(nov(29), { valves })).toEqual(chatBody);
    await spend('m3', '0.01', nov(29, 13));
    const error = await rejection(inlet(nov(29, 14), { valves }));
    expect(error.status).toBe(429);
    expect(error.message).toBe('Your monthly budget of $20.00 is used up; it resets on 1 December.');
    expect(await inlet(Date.UTC(2026, 11, 1, 0, 0), { valves })).toEqual(chatBody);
  });

  it('daily caps reset at 00:00 UTC', async () => {
    await spend('d1', '2', nov(10, 9));
    const error = await rejection(inlet(nov(10, 23), { valves: { daily_limit_usd: 2 } }));
    expect(error.message).toBe('Your daily budget of $2.00 is used up; it resets at 00:00 UTC.');
    expect(await inlet(nov(11, 0), { valves: { daily_limit_usd: 2 } })).toEqual(chatBody);
  });

  it('exact decimals: 0.1 × 3 reaches a 0.30 cap (floats would not)', async () => {
    for (const id of ['a', 'b', 'c']) await spend(id, '0.1', nov(5));
    await rejection(inlet(nov(5, 18), { valves: { daily_limit_usd: 0.3 } }));
  });

  it('other users’ spend does not count', async () => {
    await spend('x', '50', nov(5), 'someone-else');
    expect(await inlet(nov(5, 18), { valves: { monthly_limit_usd: 20 } })).toEqual(chatBody);
  });

  it('admins are exempt by default, not when exempt_roles is emptied', async () => {
    const admin = { ...user, role: 'admin' };
    await spend('a', '30', nov(5));
    expect(await inlet(nov(6), { valves: { monthly_limit_usd: 20 }, user: admin })).toEqual(chatBody);
    await rejection(inlet(nov(6), { valves: { monthly_limit_usd: 20, exempt_roles: [] }, user: admin }));
  });

  it('background tasks count but are never blocked', async () => {
    await spend('a', '30', nov(5));
    const task = { ...chatBody, metadata: { chat_id: 'c1', task: 'title_generation' } };
    expect(await inlet(nov(6), { valves: { monthly_limit_usd: 20 }, body: task })).toEqual(task);
  });

  it('role caps, then per-user overrides by id or email (0 = no cap)', async () => {
    await spend('a', '6', nov(5));
    const roleCap = { role_limits: { user: { monthly_usd: 5 } } };
    expect((await rejection(inlet(nov(6), { valves: roleCap }))).message).toMatch(/monthly budget of \$5\.00/);
    expect(
      await inlet(nov(6), { valves: { ...roleCap, user_limits: { 'ann@example.com': { monthly_usd: 10 } } } }),
    ).toEqual(chatBody);
    expect(await inlet(nov(6), { valves: { ...roleCap, user_limits: { u1: { monthly_usd: 0 } } } })).toEqual(chatBody);
    expect(
      (
        await rejection(
          inlet(nov(5, 18), { valves: { monthly_limit_usd: 100, user_limits: { u1: { daily_usd: 6 } } } }),
        )
      ).message,
    ).toMatch(/daily budget of \$6\.00/);
  });

  it('no caps configured: never blocks, and valves parse from {}', async () => {
    await spend('a', '1000', nov(5));
    expect(await inlet(nov(6))).toEqual(chatBody);
    expect(spendLimitDefault.valves!.parse({})).toMatchObject({
      daily_limit_usd: 0,
      monthly_limit_usd: 0,
      exempt_roles: ['admin'],
    });
  });
});
