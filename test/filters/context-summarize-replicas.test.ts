import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { createRuntime, type Runtime } from '../../src/compose.js';
import { deletePrefixedKeys } from '../../src/state/redis/delete-prefixed-keys.js';
import { silentLogger } from '../../src/core/util/logger.js';
import { copyShippedFilter, TEST_API_KEY } from '../helpers/create-test-runtime.js';
import { startLoopback, type LoopbackServer } from '../llm/helpers/loopback-openai.js';
import { faithfulSummary, orderChat, type Message } from '../compress/helpers/order-chat.js';

const redisUrl = inject('redisUrl');
if (!redisUrl && process.env.CI) throw new Error('No Redis for the summary replica suite under CI');
const prefix = `eunoe-sum-${process.pid}-${Date.now()}:`;
const auth = { Authorization: `Bearer ${TEST_API_KEY}` };
const user = { id: 'u1', role: 'user' };

/** One replica: its own directory and process state, the shared Redis. */
async function replica(server: LoopbackServer): Promise<{ runtime: Runtime; root: string }> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-replica-'));
  mkdirSync(path.join(root, 'filters'), { recursive: true });
  writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
  copyShippedFilter('context.ts', path.join(root, 'filters'));
  const config = loadConfig(
    {
      FILTER_LOAD_TIMEOUT_MS: '60000', // a liveness bound for worker imports on a busy machine
      PIPELINES_API_KEY: TEST_API_KEY,
      LOG_LEVEL: 'silent',
      WATCH_FILTERS: 'false',
      PRICING_FETCH: 'false',
      REDIS_URL: redisUrl,
      REDIS_PREFIX: prefix,
    },
    root,
  );
  const runtime = await createRuntime({ config, logger: silentLogger(), watch: false });
  await request(runtime.app)
    .post('/context/valves/update')
    .set(auth)
    .send({
      max_tokens: '800',
      summary_min_budget: 0,
      weighting: 'static',
      summary_base_url: server.url,
      summary_model: 'mini',
      ahead_of_time: false,
    })
    .expect(200);
  return { runtime, root };
}

describe.runIf(redisUrl)('summaries shared by replicas through Redis', () => {
  let server: LoopbackServer;
  const replicas: Array<{ runtime: Runtime; root: string }> = [];
  beforeAll(async () => {
    server = await startLoopback(faithfulSummary);
    replicas.push(await replica(server), await replica(server));
  });
  afterAll(async () => {
    for (const { runtime, root } of replicas) {
      await runtime.close();
      rmSync(root, { recursive: true, force: true });
    }
    await server.close();
    const admin = new Redis(redisUrl);
    await deletePrefixedKeys(admin, prefix);
    admin.disconnect();
  });

  it('a history summarized on one replica is not summarized again on the other', async () => {
    const messages = orderChat(12);
    const send = (index: number) =>
      request(replicas[index]!.runtime.app)
        .post('/context/filter/inlet')
        .set(auth)
        .send({ body: { model: 'gpt-4o', messages, metadata: { chat_id: `r${index}` } }, user })
        .expect(200);
    const first = await send(0);
    const calls = server.chatCalls();
    expect(calls).toBeGreaterThan(0);
    const second = await send(1);
    expect(server.chatCalls()).toBe(calls);
    expect(second.body.messages).toEqual(first.body.messages);
    expect((second.body.messages as Message[])[1]!.content).toMatch(/^\[Earlier in this conversation/);
  });
});
