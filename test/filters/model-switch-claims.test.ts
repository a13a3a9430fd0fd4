import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { modelSwitches } from '../../src/features/spend-limit/model-switches.js';
import type { StateStore } from '../../src/state/types.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { deleteRedisPrefix, redisReplica } from '../usage/helpers/ledger-fixtures.js';

/**
 * The spend-limit inlet's model switches as Eunoe's openai-proxy claims them (ModelSwitches.claimServed): the proxy's
 * request carries no message id, so it takes the user's oldest unclaimed switch to the model it serves, each once,
 * even when replicas claim at once (compare-and-set on the real store).
 */

const redisUrl = inject('redisUrl');
const prefix = `eunoe-switch-${randomUUID().slice(0, 8)}:`;

async function claimsEachOnce(stores: StateStore[]) {
  const [recorder] = stores.map(modelSwitches);
  const claimers = stores.map(modelSwitches);
  // Five switches of one user to gpt-4o-mini, from five message ids; one of another user; one to another model.
  for (let index = 0; index < 5; index++)
    await recorder!.record(
      `m-${index}`,
      { requested: `openai-proxy.big-${index}`, served: 'openai-proxy.gpt-4o-mini' },
      'ann',
    );
  await recorder!.record('m-bob', { requested: 'openai-proxy.gpt-4o', served: 'openai-proxy.gpt-4o-mini' }, 'bob');
  await recorder!.record('m-other', { requested: 'openai-proxy.gpt-5', served: 'openai-proxy.gpt-5-mini' }, 'ann');
  // Twelve claims at once over the replicas: five get one each (oldest first overall), the rest none.
  const claims = await Promise.all(
    Array.from({ length: 12 }, (_, index) =>
      claimers[index % claimers.length]!.claimServed('ann', 'openai-proxy.gpt-4o-mini'),
    ),
  );
  const got = claims.filter((claim) => claim !== undefined).map((claim) => claim.requested);
  expect(got.sort()).toEqual([0, 1, 2, 3, 4].map((index) => `openai-proxy.big-${index}`));
  // Bob's and the other model's are untouched; by message id the switch is still found (the outlet reads it).
  expect(await claimers[0]!.claimServed('bob', 'openai-proxy.gpt-4o-mini')).toEqual({
    requested: 'openai-proxy.gpt-4o',
    served: 'openai-proxy.gpt-4o-mini',
  });
  expect(await claimers[0]!.claimServed('ann', 'openai-proxy.gpt-5-mini', 'm-other')).toEqual({
    requested: 'openai-proxy.gpt-5',
    served: 'openai-proxy.gpt-5-mini',
  });
  // Claimed by its message id, it is no longer unclaimed.
  expect(await claimers[0]!.claimServed('ann', 'openai-proxy.gpt-5-mini')).toBeUndefined();
  expect(await claimers[0]!.find('m-3')).toEqual({
    requested: 'openai-proxy.big-3',
    served: 'openai-proxy.gpt-4o-mini',
  });
}

describe('model switch claims (SQLite)', () => {
  it('each switch is claimed once, oldest first, per user and served model', async () => {
    const { store, dispose } = await tempSqliteStore('switch-claims');
    try {
      await claimsEachOnce([store]);
    } finally {
      await dispose();
    }
  });
});

describe.runIf(redisUrl)('model switch claims across two Redis replicas', () => {
  afterAll(() => deleteRedisPrefix(redisUrl!, prefix));

  it('each switch is claimed once when both replicas claim at once', async () => {
    const replicas = [await redisReplica(redisUrl!, prefix), await redisReplica(redisUrl!, prefix)];
    try {
      await claimsEachOnce(replicas);
    } finally {
      await Promise.all(replicas.map((replica) => replica.close()));
    }
  });
});
