import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { createRuntime, type Runtime } from '../../src/compose.js';
import { createLogger, silentLogger } from '../../src/core/util/logger.js';
import { createStateStore } from '../../src/state/create-state-store.js';
import { ScopedState } from '../../src/state/scoped-state.js';
import { countMessageTokens, loadEncoder, REPLY_PRIMING_TOKENS } from '../../src/domain/engine/index.js';
import { copyShippedFilter, repoRoot, TEST_API_KEY } from '../helpers/create-test-runtime.js';
import type { Message } from '../compress/helpers/order-chat.js';

const auth = { Authorization: `Bearer ${TEST_API_KEY}` };
const SECRET = 'ZANZIBAR-7731-secret-text';

function chat(turns: number, secretAt = -1): Message[] {
  const messages: Message[] = [{ role: 'system', content: 'Be brief.' }];
  for (let turn = 0; turn < turns; turn++) {
    const extra = turn === secretAt ? ` ${SECRET}` : '';
    messages.push({ role: 'user', content: `Question ${turn}${extra}: ${'tell me more about this '.repeat(8)}` });
    messages.push({ role: 'assistant', content: `Answer ${turn}: ${'here is more about that '.repeat(10)}` });
  }
  return messages;
}

const tokens = (messages: Message[]) =>
  messages.reduce((sum, message) => sum + countMessageTokens(message, loadEncoder('o200k_base')), REPLY_PRIMING_TOKENS);

describe('defects of the Python library lethes that the host and filters do not repeat', () => {
  let root: string;
  let runtime: Runtime;
  let logs = '';

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-lethes-'));
    writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
    mkdirSync(path.join(root, 'filters'));
    copyShippedFilter('context.ts', path.join(root, 'filters'));
    const sink = new Writable({
      write: (chunk, _encoding, done) => {
        logs += chunk.toString();
        done();
      },
    });
    const config = loadConfig(
      {
        PIPELINES_API_KEY: TEST_API_KEY,
        WATCH_FILTERS: 'false',
        PRICING_FETCH: 'false',
        LOG_LEVEL: 'info',
        FILTER_LOAD_TIMEOUT_MS: '60000',
      },
      root,
    );
    runtime = await createRuntime({ config, logger: createLogger({ level: 'info', destination: sink }), watch: false });
    await request(runtime.app).post('/context/valves/update').set(auth).send({ max_tokens: '3000' }).expect(200);
  });
  afterAll(async () => {
    await runtime.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('at the default log level, structured info lines are written and no message text is logged', async () => {
    logs = '';
    const response = await request(runtime.app)
      .post('/context/filter/inlet')
      .set(auth)
      .send({ body: { model: 'gpt-4o', messages: chat(40, 3), metadata: { chat_id: 'o1' } }, user: { id: 'u' } })
      .expect(200);
    expect(response.body.messages.length).toBeGreaterThan(0);
    const lines = logs
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; reqId?: string });
    expect(lines.some((line) => line.msg === 'context planned' && line.reqId)).toBe(true);
    expect(logs).not.toContain(SECRET);
  });

  it('concurrent chats with different budgets never see each other’s request state', async () => {
    await request(runtime.app)
      .post('/context/valves/user/update?user_id=small')
      .set(auth)
      .send({ max_tokens: '600', recent: '', default_flags: '' })
      .expect(200);
    const calls = Array.from({ length: 12 }, (_, index) => {
      const user = index % 2 === 0 ? 'small' : 'large';
      return request(runtime.app)
        .post('/context/filter/inlet')
        .set(auth)
        .send({
          body: { model: 'gpt-4o', messages: chat(30 + index), metadata: { chat_id: `u2-${index}` } },
          user: { id: user },
        })
        .then((response) => ({ user, sent: response.body.messages as Message[] }));
    });
    const results = await Promise.all(calls);
    for (const result of results) expect(tokens(result.sent)).toBeLessThanOrEqual(result.user === 'small' ? 600 : 3000);
    const small = Math.max(...results.filter((result) => result.user === 'small').map((result) => result.sent.length));
    const large = Math.min(...results.filter((result) => result.user === 'large').map((result) => result.sent.length));
    expect(large).toBeGreaterThan(small);
  });

  it('/health reports the version from package.json', async () => {
    const response = await request(runtime.app).get('/v1/health').set(auth).expect(200);
    const version = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string })
      .version;
    expect(response.body.version).toBe(version);
  });
});

const redisUrl = inject('redisUrl');

describe.runIf(redisUrl || process.env.CI)('Redis keys carry the deployment prefix exactly once', () => {
  it('a filter key lands under REDIS_PREFIX once, never doubled', async () => {
    if (!redisUrl) throw new Error('CI needs a Redis');
    const prefix = `eunoe-s3-${randomBytes(4).toString('hex')}:`;
    const store = await createStateStore({
      config: {
        REDIS_URL: redisUrl,
        REDIS_PREFIX: prefix,
        STATE_TIMEOUT_MS: 500,
        LEDGER_QUEUE_MAX: 10,
        sqlitePath: '',
      },
      logger: silentLogger(),
    });
    const client = new Redis(redisUrl);
    try {
      await new ScopedState(store, 'f:context:').set('summary:abc', { text: 'x' });
      const keys = await client.keys(`${prefix}*`);
      expect(keys).toHaveLength(1);
      expect(keys[0]!.split(prefix)).toHaveLength(2);
      expect(keys[0]!.endsWith('f:context:summary:abc')).toBe(true);
    } finally {
      const keys = await client.keys(`${prefix}*`);
      if (keys.length) await client.del(...keys);
      client.disconnect();
      await store.close();
    }
  });
});
