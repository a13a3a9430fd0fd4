import { randomUUID } from 'node:crypto';
import { afterAll, describe, inject } from 'vitest';
import { deleteRedisPrefix, redisReplica, sqliteBackend } from './helpers/ledger-fixtures.js';
import { runSpendHoldsContract } from './spend-holds-contract.js';
import { runScopeHoldsContract } from './scope-holds-contract.js';

runSpendHoldsContract('sqlite', sqliteBackend('eunoe-spend-holds-'));

runScopeHoldsContract('sqlite', sqliteBackend('eunoe-spend-holds-'));

const redisUrl = inject('redisUrl');
const filePrefix = `eunoe-test-holds:${randomUUID()}:`;
describe.runIf(redisUrl)('spend holds on Redis', () => {
  afterAll(() => deleteRedisPrefix(redisUrl, filePrefix));
  let count = 0;
  runSpendHoldsContract('redis', async () => {
    const store = await redisReplica(redisUrl, `${filePrefix}${count++}:`);
    return { store, dispose: () => store.close() };
  });
  runScopeHoldsContract('redis', async () => {
    const store = await redisReplica(redisUrl, `${filePrefix}${count++}:`);
    return { store, dispose: () => store.close() };
  });
});
