import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { outletWithUsage, serverCaller } from '../helpers/server-calls.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait-for.js';

const redisUrl = inject('redisUrl');
const KEY = 'replica-test-key';

const call = serverCaller(KEY);

describe.runIf(redisUrl || process.env.CI)('two Eunoe processes on one Redis', () => {
  let root: string;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    if (!redisUrl) throw new Error('CI needs a Redis for the replica test');
    root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-replicas-'));
    const filters = path.join(root, 'filters');
    mkdirSync(filters);
    const prefix = `eunoe-replica-${randomBytes(4).toString('hex')}:`;
    const env = (name: string) => ({
      REDIS_URL: redisUrl,
      REDIS_PREFIX: prefix,
      PIPELINES_API_KEY: KEY,
      // The shipped filters, in the server's thread as deployed (filter workers are not the subject here).
      SHIPPED_FILTERS: 'context,accounting',
      FILTERS_DIR: filters,
      DATA_DIR: path.join(root, name, 'data'),
      VALVES_DIR: path.join(root, name, 'valves'),
    });
    [a, b] = await Promise.all([startServerProcess(env('a')), startServerProcess(env('b'))]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('a valve change made through one replica takes effect on the other without a restart', async () => {
    const updated = await call(a, 'POST', '/context/valves/update', { max_tokens: '777', recent: '5' });
    expect(updated.status).toBe(200);
    const seen = await waitFor(() => call(b, 'GET', '/v1/context/valves'), {
      until: (value) => value.body.max_tokens === 777,
    });
    expect(seen.body.max_tokens).toBe(777);
    expect(seen.body.recent).toBe(5);
  });

  it('per-user valves saved through one replica are served by the other', async () => {
    const saved = await call(a, 'POST', '/context/valves/user/update?user_id=u-42', {
      max_tokens: '500',
      recent: '',
      default_flags: '',
    });
    expect(saved.status).toBe(200);
    const read = await call(b, 'GET', '/context/valves/user?user_id=u-42');
    expect(read.body.max_tokens).toBe(500);
  });

  it('chat flag state written by one replica is used by the other (not rebuilt from history)', async () => {
    const user = { id: 'u1', role: 'user' };
    const chat = `chat-${randomBytes(3).toString('hex')}`;
    const first = await call(a, 'POST', '/context/filter/inlet', {
      user,
      body: { model: 'gpt-4o', metadata: { chat_id: chat }, messages: [{ role: 'user', content: '!+recent=9 hello' }] },
    });
    expect(first.status).toBe(200);
    expect(first.body.messages[0].content).toBe('hello');
    // The carrying message was edited away: only the shared store still knows +recent=9.
    const outlet = await call(b, 'POST', '/context/filter/outlet', {
      user,
      body: {
        model: 'gpt-4o',
        chat_id: chat,
        id: 'm3',
        session_id: 's',
        messages: [
          { id: 'm1', role: 'user', content: 'hello (edited)' },
          { id: 'm2', role: 'assistant', content: 'hi' },
          { id: 'm2b', role: 'user', content: '!flags ok?' },
          { id: 'm3', role: 'assistant', content: 'Sure.' },
        ],
      },
    });
    expect(outlet.status).toBe(200);
    expect(outlet.body.messages.at(-1).content).toMatch(/recent=9/);
  });

  it('replies recorded through either replica land in one ledger, each once', async () => {
    const user = { id: 'u-ledger', role: 'user' };
    const chat = `chat-${randomBytes(3).toString('hex')}`;
    const outletBody = (id: string, prompt: number) => ({
      ...outletWithUsage(chat, id, prompt, { cost: false }),
      session_id: 's',
    });

    expect((await call(a, 'POST', '/accounting/filter/outlet', { user, body: outletBody('r1', 1000) })).status).toBe(
      200,
    );
    expect((await call(b, 'POST', '/accounting/filter/outlet', { user, body: outletBody('r2', 2000) })).status).toBe(
      200,
    );
    // A repeated outlet (Open WebUI retries, or both generations of outlet) never counts twice.
    expect((await call(a, 'POST', '/accounting/filter/outlet', { user, body: outletBody('r2', 2000) })).status).toBe(
      200,
    );
    for (const server of [a, b]) {
      const usage = await call(server, 'GET', `/usage?user=u-ledger&chat=${chat}`);
      expect(usage.status).toBe(200);
      expect(usage.body.totals.records).toBe(2);
      expect(usage.body.totals.promptTokens).toBe(3000);
      // gpt-4o in the bundled snapshot: $2.50/M in, $10/M out → 3000 × 2.5e-6 + 20 × 1e-5 = 0.0077
      expect(Number(usage.body.totals.cost)).toBeCloseTo(0.0077, 10);
    }
  });
});
