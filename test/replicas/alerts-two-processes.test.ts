import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KEY, nearCapBurst, post } from '../caps/helpers/near-cap-burst.js';
import { listenOnLoopback, type LoopbackHttp } from '../helpers/loopback-server.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { deleteRedisPrefix } from '../usage/helpers/ledger-fixtures.js';

const redisUrl = inject('redisUrl');

/**
 * Webhook alerts from two real server processes (`node dist/main.js`) sharing one real Redis, the shipped spend-limit
 * and accounting filters, a webhook receiver on loopback: the near-cap burst (a user at $0.07 of a $0.10 monthly cap
 * sends 32 requests at once over both replicas) crosses `warn_fraction` and the cap on both replicas at once, and
 * each crossing is posted once. The servers are stopped before counting: a stopping filter sends what it queued.
 */
describe.runIf(redisUrl)('alerts across two server processes on one Redis', () => {
  const prefix = `eunoe-test-alerts-procs-${randomBytes(4).toString('hex')}:`;
  const root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-alerts-procs-'));
  const received: Array<Record<string, unknown>> = [];
  let hook: LoopbackHttp;
  let servers: ServerProcess[] = [];

  beforeAll(async () => {
    hook = await listenOnLoopback((request, response) => {
      let text = '';
      request.on('data', (chunk) => (text += chunk));
      request.on('end', () => {
        received.push(JSON.parse(text));
        response.statusCode = 200;
        response.end('ok');
      });
    });
    const valves = path.join(root, 'valves');
    mkdirSync(valves);
    mkdirSync(path.join(root, 'filters'));
    writeFileSync(
      path.join(valves, 'spend-limit.json'),
      JSON.stringify({
        monthly_limit_usd: 0.1,
        alert_webhook_url: `${hook.origin}/alerts`,
        // The projection depends on today's date; the two lines the burst crosses do not.
        alert_on: ['warn_threshold', 'cap_reached'],
      }),
    );
    const env = (name: string) => ({
      PIPELINES_API_KEY: KEY,
      SHIPPED_FILTERS: 'spend-limit,accounting',
      FILTERS_DIR: path.join(root, 'filters'),
      VALVES_DIR: valves,
      DATA_DIR: path.join(root, name),
      REDIS_URL: redisUrl!,
      REDIS_PREFIX: prefix,
      // Atomicity is the subject, not a slow store's fall-back (see near-cap-burst.ts).
      STATE_TIMEOUT_MS: '10000',
    });
    servers = await Promise.all([startServerProcess(env('a')), startServerProcess(env('b'))]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await hook?.close();
    await deleteRedisPrefix(redisUrl!, prefix);
    rmSync(root, { recursive: true, force: true });
  });

  it('a bad alert_webhook_url is a 400 naming the rule; the burst posts warn_threshold and cap_reached once each', async () => {
    const refused = await post(servers[0]!, '/spend-limit/valves/update', { alert_webhook_url: 'ftp://example.com/x' });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/alert_webhook_url: must be an http:\/\/ or https:\/\/ URL, or empty/);

    const burst = await nearCapBurst(servers, 'alert-user', 32, {
      model: 'openai/gpt-4o',
      outletModel: 'openai/gpt-4o',
    });
    expect(burst.admitted).toBe(4);
    await Promise.all(servers.map((server) => server.stop()));

    const month = new Date().toISOString().slice(0, 7);
    expect(received.map((alert) => alert.event).sort()).toEqual(['cap_reached', 'warn_threshold']);
    for (const alert of received)
      expect(alert).toMatchObject({
        user: { id: 'alert-user', email: 'alert-user@example.com', name: 'alert-user' },
        scope: { kind: 'user', id: 'alert-user', name: null },
        cap: { period: 'monthly', period_key: `m:${month}`, limit_usd: '0.1' },
        source: 'eunoe',
      });
  });
});
