import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { createSpendLimitFilter } from '../../src/features/spend-limit/spend-limit-filter.js';
import { SpendAlerts } from '../../src/features/spend-limit/spend-alerts.js';
import type { FilterBody, HostServices, PipelineUser } from '../../src/runtime/host/types.js';
import type { StateStore } from '../../src/state/types.js';
import type { Ledger } from '../../src/domain/usage/types.js';
import { listenOnLoopback, type LoopbackHttp } from '../helpers/loopback-server.js';
import { tempDir, tempSqliteStore } from '../helpers/temp-store.js';
import { hookArgs, realServices } from '../usage/helpers/hook-args.js';
import { usageRecord } from '../usage/helpers/usage-record.js';
import { captureLogger } from '../state/helpers/capture-logger.js';
import { deleteRedisPrefix, redisReplica } from '../usage/helpers/ledger-fixtures.js';
import { rejection } from './helpers/rejection.js';

/**
 * The spend-limit filter's webhook alerts against a real receiver on loopback (Node's HTTP server reading the POST
 * as any webhook endpoint would), on a real SQLite store and on two replicas sharing a real Redis. The spend follows
 * docs/accounting.md's pace example: $2 a day from 13 November, $15 spent by noon on the 20th, a $30 monthly cap.
 */

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/** A webhook endpoint: keeps what it gets; answers each POST with the next status of `answers` (then 204). */
async function receiver() {
  const received: Received[] = [];
  const answers: number[] = [];
  const http: LoopbackHttp = await listenOnLoopback((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: JSON.parse(text) });
      response.statusCode = answers.shift() ?? 204;
      response.end();
    });
  });
  return { http, received, answers, url: `${http.origin}/hooks/eunoe?token=s3cret` };
}

const MODEL = 'openai/gpt-4o';
const ann: PipelineUser = { id: 'u-ann', email: 'ann@example.com', name: 'Ann', role: 'user' };
const NOON_20 = Date.UTC(2026, 10, 20, 12);
const body = (id: string): FilterBody => ({
  model: MODEL,
  max_tokens: 10,
  messages: [{ role: 'user', content: 'Summarise the report.' }],
  metadata: { chat_id: `chat-${id}`, message_id: id },
});

/** $2 on each of 13–19 November at noon and $1 on the 20th at 06:00: $15 by noon on the 20th. */
async function seedPace(ledger: Ledger, userId: string) {
  for (let day = 13; day <= 19; day++)
    await ledger.record(
      usageRecord({ messageId: `${userId}-d${day}`, userId, cost: '2', time: Date.UTC(2026, 10, day, 12) }),
    );
  await ledger.record(usageRecord({ messageId: `${userId}-d20`, userId, cost: '1', time: Date.UTC(2026, 10, 20, 6) }));
}

interface Host {
  store: StateStore;
  services: HostServices;
  ledger: Ledger;
  stop: () => Promise<void>;
}

async function hostOn(store: StateStore, dispose: () => Promise<void>): Promise<Host> {
  const { dir, remove } = tempDir('eunoe-alerts-pricing-');
  const { services, pricing } = await realServices(store, dir);
  return {
    store,
    services,
    ledger: services.ledger,
    stop: async () => {
      await pricing.stop();
      await dispose();
      remove();
    },
  };
}

describe('webhook alerts (one SQLite host)', () => {
  let host: Host;
  let hook: Awaited<ReturnType<typeof receiver>>;
  let clock = NOON_20;
  // A new filter per test, as a restarted server: its memory of claimed crossings starts empty.
  let alerts: SpendAlerts;
  let filter: ReturnType<typeof createSpendLimitFilter>;
  const log = captureLogger();

  beforeEach(async () => {
    const { store, dispose } = await tempSqliteStore('eunoe-alerts-');
    host = await hostOn(store, dispose);
    hook = await receiver();
    clock = NOON_20;
    alerts = new SpendAlerts({ retryDelaysMs: [20, 20, 20] });
    filter = createSpendLimitFilter({ now: () => clock, alerts });
  });
  afterEach(async () => {
    await alerts.settled();
    await hook.http.close();
    await host.stop();
  });

  const valves = (extra: Record<string, unknown> = {}) => ({
    monthly_limit_usd: 30,
    alert_webhook_url: hook.url,
    ...extra,
  });
  const inlet = async (id: string, user = ann, extra: Record<string, unknown> = {}) => {
    const args = hookArgs(filter, {
      body: body(id),
      user,
      store: host.store,
      services: host.services,
      valves: valves(extra),
      hook: 'inlet',
      filterId: 'spend-limit',
    });
    return filter.inlet!({ ...args, logger: log.logger });
  };
  const spend = (id: string, cost: string, userId = ann.id!) =>
    host.ledger.record(usageRecord({ messageId: id, userId, cost, time: clock }));
  const events = () => hook.received.map((each) => each.body.event);

  it('posts the projection, the soft threshold and the cap once each per month, in the documented wire format', async () => {
    await seedPace(host.ledger, ann.id!);
    await inlet('r1');
    await alerts.settled();
    expect(hook.received).toHaveLength(1);
    const [first] = hook.received;
    expect(first!.headers['content-type']).toBe('application/json');
    expect(first!.headers['user-agent']).toBe('eunoe-alerts');
    expect(first!.body).toEqual({
      event: 'projected_over_cap',
      time: '2026-11-20T12:00:00.000Z',
      user: { id: 'u-ann', email: 'ann@example.com', name: 'Ann' },
      scope: { kind: 'user', id: 'u-ann', name: null },
      cap: {
        period: 'monthly',
        period_key: 'm:2026-11',
        limit_usd: '30',
        resets_at: '2026-12-01T00:00:00.000Z',
      },
      spent_usd: '15',
      in_use_usd: expect.stringMatching(/^15\.000\d+$/), // + this request's held estimate
      warn_fraction: 0.8,
      projected_usd: '36', // $15 + $2 a day × 10.5 days (docs/accounting.md)
      passes_on: '2026-11-28',
      text: 'ann@example.com: monthly cap of $30.00 will be passed on 2026-11-28 at this pace ($36.00 projected by month end, $15.00 spent).',
      source: 'eunoe',
    });

    // More requests past the same line: nothing more.
    for (const id of ['r2', 'r3', 'r4']) await inlet(id);
    await alerts.settled();
    expect(events()).toEqual(['projected_over_cap']);

    // $10 more: $25 of $30 (83 %) crosses warn_fraction 0.8, once.
    await spend('big', '10');
    for (const id of ['r5', 'r6', 'r7']) await inlet(id);
    await alerts.settled();
    expect(events()).toEqual(['projected_over_cap', 'warn_threshold']);
    expect(hook.received[1]!.body).toMatchObject({ spent_usd: '25', projected_usd: '46', passes_on: '2026-11-23' });
    expect(hook.received[1]!.body.text).toMatch(
      /^ann@example\.com: monthly cap of \$30\.00 83 % in use \(\$25\.00\d*\)/,
    );

    // The cap: $30 spent, the next requests are refused; one cap_reached.
    await spend('last', '5');
    for (const id of ['r8', 'r9']) expect((await rejection(inlet(id))).status).toBe(429);
    await alerts.settled();
    expect(events()).toEqual(['projected_over_cap', 'warn_threshold', 'cap_reached']);
    expect(hook.received[2]!.body).toMatchObject({ event: 'cap_reached', spent_usd: '30', passes_on: '2026-11-20' });

    // A new month is a new period: the same lines alert again, under m:2026-12.
    clock = Date.UTC(2026, 11, 1, 12);
    await spend('dec', '30');
    expect((await rejection(inlet('r10'))).status).toBe(429);
    await alerts.settled();
    expect(events()).toEqual(['projected_over_cap', 'warn_threshold', 'cap_reached', 'warn_threshold', 'cap_reached']);
    expect(hook.received.slice(3).map((each) => (each.body.cap as { period_key: string }).period_key)).toEqual([
      'm:2026-12',
      'm:2026-12',
    ]);
  });

  it("a group's shared budget alerts once for the group, named, whichever member's request crosses the line", async () => {
    const research = [{ id: 'g-17', name: 'Research' }];
    const bob: PipelineUser = { id: 'u-bob', email: 'bob@example.com', name: 'Bob', role: 'user', groups: research };
    const group = {
      monthly_limit_usd: 0,
      group_limits: { Research: { monthly_usd: 10 } },
      alert_on: ['warn_threshold'],
    };
    // $8.50 of the group's $10 spent by its members (the records carry the scope, as the accounting outlet writes them).
    await host.ledger.record(
      usageRecord({ messageId: 'g1', userId: 'u-ann', cost: '5', time: clock, scopes: ['g:Research'] }),
    );
    await host.ledger.record(
      usageRecord({ messageId: 'g2', userId: 'u-bob', cost: '3.5', time: clock, scopes: ['g:Research'] }),
    );
    await inlet('g-r1', { ...ann, groups: research }, group);
    await inlet('g-r2', bob, group);
    await alerts.settled();
    expect(events()).toEqual(['warn_threshold']);
    expect(hook.received[0]!.body).toMatchObject({
      user: { id: 'u-ann' },
      scope: { kind: 'group', id: 'g:Research', name: 'Research' },
      cap: { period: 'monthly', limit_usd: '10' },
      spent_usd: '8.5',
    });
  });

  it('retries after a 500 and delivers the same body', async () => {
    hook.answers.push(500);
    await spend('all', '30');
    await rejection(inlet('r1', ann, { alert_on: ['cap_reached'] }));
    await alerts.settled();
    expect(hook.received.map((each) => each.body.event)).toEqual(['cap_reached', 'cap_reached']);
    expect(hook.received[1]!.body).toEqual(hook.received[0]!.body);
  });

  it('gives up after four attempts with one clear log line (the URL origin only), and never posts that alert again this period', async () => {
    hook.answers.push(500, 502, 503, 500, 500);
    await spend('all', '30');
    await rejection(inlet('r1', ann, { alert_on: ['cap_reached'] }));
    await alerts.settled();
    expect(hook.received).toHaveLength(4);
    const failures = log.lines.filter((line) => line.msg.includes('alert webhook'));
    expect(failures).toHaveLength(1);
    expect(failures[0]!.level).toBe(40); // warn
    expect(failures[0]!.msg).toBe(
      `spend-limit: alert webhook ${hook.http.origin} failed (HTTP 500) after 4 attempt(s); this cap_reached alert is not sent again this period`,
    );
    expect(JSON.stringify(failures[0])).not.toContain('s3cret');
    await rejection(inlet('r2', ann, { alert_on: ['cap_reached'] }));
    await alerts.settled();
    expect(hook.received).toHaveLength(4);
  });

  it('alert_on chooses the events; no URL, no alerts; a user under every line sends nothing', async () => {
    await seedPace(host.ledger, ann.id!);
    await inlet('r1', ann, { alert_on: ['cap_reached'] }); // the projection passes the cap, not asked for
    await inlet('r2', { ...ann, id: 'u-bob', email: 'bob@example.com' }); // $0 spent
    await spend('all', '30', 'u-cy');
    await rejection(inlet('r3', { ...ann, id: 'u-cy', email: 'cy@example.com' }, { alert_webhook_url: '' }));
    await alerts.settled();
    expect(hook.received).toEqual([]);
  });
});

describe('the alert_webhook_url valve', () => {
  const filter = createSpendLimitFilter();
  it.each(['ftp://example.com/hook', 'hooks.example.com/eunoe', 'javascript:alert(1)', 'http://'])(
    '%s is refused with a message naming the rule',
    (url) => {
      const parsed = filter.valves!.safeParse({ alert_webhook_url: url });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]).toMatchObject({
        path: ['alert_webhook_url'],
        message: 'must be an http:// or https:// URL, or empty (no alerts)',
      });
    },
  );
  it('accepts http and https URLs and empty; alert_on accepts only the three events', () => {
    for (const url of ['', 'https://hooks.slack.com/services/T0/B0/x', 'http://127.0.0.1:9000/alerts'])
      expect(filter.valves!.parse({ alert_webhook_url: url }).alert_webhook_url).toBe(url);
    expect(filter.valves!.parse({}).alert_on).toEqual(['warn_threshold', 'projected_over_cap', 'cap_reached']);
    expect(filter.valves!.safeParse({ alert_on: ['every_request'] }).success).toBe(false);
  });
});

const redisUrl = inject('redisUrl');

describe.runIf(redisUrl)('webhook alerts across two replicas on one Redis', () => {
  const prefix = `eunoe-test-alerts-${process.pid}-${Date.now()}:`;
  let hosts: Host[];
  let hook: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    hosts = [];
    for (let index = 0; index < 2; index++) {
      const store = await redisReplica(redisUrl!, prefix);
      hosts.push(await hostOn(store, () => store.close()));
    }
    hook = await receiver();
  });
  afterAll(async () => {
    await hook?.http.close();
    for (const host of hosts ?? []) await host.stop();
    await deleteRedisPrefix(redisUrl!, prefix);
  });

  it('a crossing seen by both replicas at once is posted once', async () => {
    // Each replica has its own filter instance (its own memory), as two processes would.
    const replicas = hosts.map((host) => {
      const alerts = new SpendAlerts({ retryDelaysMs: [20] });
      return { host, alerts, filter: createSpendLimitFilter({ now: () => NOON_20, alerts }) };
    });
    await seedPace(hosts[0]!.ledger, ann.id!);
    await hosts[0]!.ledger.record(usageRecord({ messageId: 'big', userId: ann.id!, cost: '10', time: NOON_20 }));
    const calls = Array.from({ length: 16 }, (_, index) => {
      const { host, filter } = replicas[index % 2]!;
      const args = hookArgs(filter, {
        body: body(`r${index}`),
        user: ann,
        store: host.store,
        services: host.services,
        valves: { monthly_limit_usd: 30, alert_webhook_url: hook.url },
        hook: 'inlet',
        filterId: 'spend-limit',
      });
      return filter.inlet!(args);
    });
    await Promise.all(calls);
    await Promise.all(replicas.map((replica) => replica.alerts.settled()));
    expect(hook.received.map((each) => each.body.event).sort()).toEqual(['projected_over_cap', 'warn_threshold']);
  });
});
