import { describe, expect, inject, it } from 'vitest';
import type { ServerProcess } from '../helpers/server-process.js';
import { capServersForTests } from './helpers/cap-servers-for-tests.js';
import { inlet, inletChain, outlet, post, usageOf, type userOf } from './helpers/near-cap-burst.js';

/**
 * Group budgets and budgets by model over real HTTP against real server processes (the shipped spend-limit and
 * accounting filters): one SQLite server, and two replicas on one Redis. The valves are docs/accounting.md's worked
 * example, scaled down so a few requests reach each cap. Each request holds about $0.0073 (918 prompt tokens of
 * openai/gpt-4o at $2.50 / M + max_tokens 500 at $10 / M, the bundled table); each reply costs $0.0075 (1,000 prompt +
 * 500 completion tokens).
 */

const redisUrl = inject('redisUrl');
const REPLY_USD = 0.0075;
/** The most a request can hold (its estimate): the overshoot bound of a cap. */
const ESTIMATE_USD = 0.0075;
const GPT = { model: 'openai/gpt-4o' };

const VALVES = {
  group_limits: {
    // Shared by its members: $0.03 a day for the whole group.
    Research: { daily_usd: 0.03 },
    // By id: each member may spend $0.02 a day; the group as a whole is not capped.
    'grp-interns': { member_daily_usd: 0.02 },
    Tight: { daily_usd: 0.015 },
    Wide: { daily_usd: 0.03 },
    // Found through group_members (the requests carry no groups).
    Fallback: { daily_usd: 0.03 },
  },
  model_limits: {
    '*/gpt-4o': { daily_usd: 0.03, group: 'Models' },
    // An exact provider id: it holds the workspace models built on it too (they are priced as it).
    'openai/gpt-4o': { daily_usd: 0.03, group: 'Workspace' },
  },
  group_members: { Fallback: ['fb-1@example.com', 'fb-2'] },
};

type Group = { id: string; name: string };
const RESEARCH: Group = { id: 'grp-research', name: 'Research' };
const INTERNS: Group = { id: 'grp-interns', name: 'Interns' };
const TIGHT: Group = { id: 'grp-tight', name: 'Tight' };
const WIDE: Group = { id: 'grp-wide', name: 'Wide' };
const MODELS: Group = { id: 'grp-models', name: 'Models' };
const WORKSPACE: Group = { id: 'grp-workspace', name: 'Workspace' };
/** A workspace model built in Open WebUI on openai/gpt-4o, as its inlet names it (`metadata.model.info.base_model_id`). */
const ACME = {
  model: 'acme-assistant',
  metadata: { model: { id: 'acme-assistant', info: { base_model_id: 'openai/gpt-4o', meta: {} } } },
};

/** `envelope` with the user's groups as the generated Function sends them (`user.groups`); none when `groups` is undefined. */
function withGroups<T extends { user: ReturnType<typeof userOf> }>(envelope: T, groups: Group[] | undefined): T {
  return groups ? { ...envelope, user: { ...envelope.user, groups } } : envelope;
}

interface Burst {
  statuses: number[];
  messages: string[];
  admitted: number;
  /** Recorded spend of the burst's users after every admitted reply, USD. */
  spent: number;
}

/**
 * `size` requests at once, request i from `users[i % users.length]`, spread over the servers; each admitted one gets
 * its reply through another server's accounting outlet (with the same groups).
 */
async function burst(
  servers: ServerProcess[],
  users: string[],
  size: number,
  groups: Group[] | undefined,
  model: { model: string; metadata?: Record<string, unknown> } = GPT,
): Promise<Burst> {
  const ids = Array.from({ length: size }, (_, index) => `${users[index % users.length]}-${index}`);
  const userAt = (index: number) => users[index % users.length]!;
  const answers = await Promise.all(
    ids.map((id, index) =>
      inletChain(servers[index % servers.length]!, withGroups(inlet(userAt(index), id, model), groups)),
    ),
  );
  const admitted = ids.flatMap((id, index) => (answers[index]!.status === 200 ? [{ id, index }] : []));
  for (const { id, index } of admitted) {
    const recorded = await post(
      servers[(index + 1) % servers.length]!,
      '/accounting/filter/outlet',
      withGroups(outlet(userAt(index), id, model.model, { prompt: 1000, completion: 500 }), groups),
    );
    expect(recorded.status).toBe(200);
  }
  let spent = 0;
  for (const user of new Set(users)) spent += Number((await usageOf(servers[0]!, user)).totals.cost);
  return {
    statuses: answers.map((answer) => answer.status),
    messages: answers.flatMap((answer) => (answer.status === 429 ? [JSON.stringify(answer.body)] : [])),
    admitted: admitted.length,
    spent,
  };
}

/** One more request of `user` after a burst: its status and its answer. */
async function next(servers: ServerProcess[], user: string, groups: Group[] | undefined, model = GPT) {
  return inletChain(servers.at(-1)!, withGroups(inlet(user, `${user}-next-${Math.random()}`, model), groups));
}

function expectWithin(result: Burst, size: number, cap: number, admitted: number) {
  expect(result.statuses).toHaveLength(size);
  expect(result.statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
  expect(result.admitted).toBe(admitted);
  expect(result.spent).toBeCloseTo(result.admitted * REPLY_USD, 10);
  // The overshoot bound: spend ends within one estimate of the cap.
  expect(result.spent).toBeLessThanOrEqual(cap + ESTIMATE_USD + 1e-12);
}

function topologies(servers: ServerProcess[]): Array<[string, () => ServerProcess[]]> {
  return [
    ['SQLite', () => [servers[0]!]],
    ...(redisUrl ? [['two replicas on one Redis', () => servers.slice(1)] as [string, () => ServerProcess[]]] : []),
  ];
}

describe('group and model budgets, over HTTP against real servers', () => {
  const servers = capServersForTests('groups', redisUrl, VALVES);

  for (const [where, on] of topologies(servers)) {
    const tag = where === 'SQLite' ? 'sq' : 'rd';

    it(`${where}: 32 concurrent requests of 8 members of a capped group end within one estimate of its cap`, async () => {
      const members = Array.from({ length: 8 }, (_, index) => `${tag}-research-${index}`);
      const result = await burst(on(), members, 32, [RESEARCH]);
      // $0.03 shared: 4 requests fit (4 × $0.0073), the 5th would pass the cap.
      expectWithin(result, 32, 0.03, 4);
      expect(result.messages[0]).toMatch(/Your group 'Research' daily budget of \$0\.03 (has|is used up)/);
      // The group's replies are recorded toward it: any member (and a new one) is refused now.
      const after = await next(on(), `${tag}-research-new`, [RESEARCH]);
      expect(after.status).toBe(429);
      expect(JSON.stringify(after.body)).toMatch(/Your group 'Research' daily budget of \$0\.03 is used up/);
      // A user outside the group is not held by it.
      expect((await next(on(), `${tag}-outsider`, undefined)).status).toBe(200);
    });

    it(`${where}: a per-member cap holds each member on their own`, async () => {
      const result = await burst(on(), [`${tag}-intern-a`], 32, [INTERNS]);
      // $0.02 per member: 2 fit.
      expectWithin(result, 32, 0.02, 2);
      expect(result.messages[0]).toMatch(/Your daily budget as a member of 'grp-interns' of \$0\.02/);
      // Another member has their own $0.02.
      expectWithin(await burst(on(), [`${tag}-intern-b`], 16, [INTERNS]), 16, 0.02, 2);
    });

    it(`${where}: a user in two groups is held by each, and their replies count toward both`, async () => {
      // Tight ($0.015) holds first: 2 fit, and they count toward Wide too.
      expectWithin(await burst(on(), [`${tag}-both`], 32, [TIGHT, WIDE]), 32, 0.015, 2);
      // Wide ($0.03) has $0.015 left for its other members: 2 more.
      expectWithin(await burst(on(), [`${tag}-wide-only`], 32, [WIDE]), 32, 0.015, 2);
      expect((await next(on(), `${tag}-wide-only-2`, [WIDE])).status).toBe(429);
    });

    it(`${where}: a model pattern's cap for one group is shared by its members on matching models only`, async () => {
      const members = [`${tag}-models-a`, `${tag}-models-b`];
      const result = await burst(on(), members, 32, [MODELS]);
      expectWithin(result, 32, 0.03, 4);
      expect(result.messages[0]).toMatch(/Your group 'Models' daily budget for '\*\/gpt-4o' of \$0\.03/);
      expect((await next(on(), members[1]!, [MODELS])).status).toBe(429);
      // Another model does not match the pattern; someone outside the group is not held by it.
      expect((await next(on(), members[0]!, [MODELS], { model: 'openai/gpt-4o-mini' })).status).toBe(200);
      expect((await next(on(), `${tag}-models-outsider`, undefined)).status).toBe(200);
    });

    it(`${where}: a model budget on a provider's id holds the workspace models built on it, and their replies count`, async () => {
      const members = [`${tag}-workspace-a`, `${tag}-workspace-b`];
      // The outlets name the workspace model only, without metadata, as Open WebUI sends them.
      const result = await burst(on(), members, 32, [WORKSPACE], ACME);
      expectWithin(result, 32, 0.03, 4);
      expect(result.messages[0]).toMatch(/Your group 'Workspace' daily budget for 'openai\/gpt-4o' of \$0\.03/);
      // The recorded replies counted toward the budget: the provider's id itself is refused now too.
      expect((await next(on(), members[1]!, [WORKSPACE])).status).toBe(429);
    });

    it(`${where}: without groups on the request, the group_members valve names the members (by email or id)`, async () => {
      const result = await burst(
        on(),
        ['fb-1', 'fb-2'].map((id) => (tag === 'sq' ? id : id)),
        32,
        undefined,
      );
      expectWithin(result, 32, 0.03, 4);
      expect(result.messages[0]).toMatch(/Your group 'Fallback' daily budget/);
      // Their recorded replies count toward the group too (the outlets carry no groups either).
      expect((await next(on(), 'fb-2', undefined)).status).toBe(429);
    });
  }
});
