import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { add, formatDecimal, parseDecimal } from '../../src/domain/pricing/decimal.js';
import { copyShippedFilter } from '../helpers/create-test-runtime.js';
import {
  canStartRedisTopologies,
  startRedisSentinel,
  topologyStore,
  useLocalTopology,
} from '../helpers/redis-topologies.js';
import { serverCaller, outletWithUsage } from '../helpers/server-calls.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { tempDir } from '../helpers/temp-store.js';
import { waitFor } from '../helpers/wait-for.js';

const KEY = 'sentinel-test-key';

const call = serverCaller(KEY);

const outletBody = (id: string, prompt: number) => outletWithUsage('chat-failover', id, prompt);

// Its own Sentinel set-up (the test kills the primary), with a password on the data nodes: the promoted replica
// and the sentinels must pass it on (masterauth, `sentinel auth-pass`). Runs beside redis-sentinel.test.ts.
describe.runIf(canStartRedisTopologies('Redis Sentinel'))('behind Redis Sentinel, a failover', () => {
  const sentinel = useLocalTopology(() => startRedisSentinel({ password: 'failover-secret' }));

  it('kill -9 of the primary under load from two replicas: no answered record lost, valves and flags intact, totals exact', async () => {
    const { dir: root, remove } = tempDir('eunoe-failover-');
    const servers: ServerProcess[] = [];
    const startedAt = Date.now();
    try {
      writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
      const filters = path.join(root, 'filters');
      mkdirSync(filters);
      copyShippedFilter('context.ts', filters);
      copyShippedFilter('accounting.ts', filters);
      const prefix = `eunoe-failover-${randomBytes(4).toString('hex')}:`;
      const env = (name: string) => ({
        ...sentinel().env,
        REDIS_PREFIX: prefix,
        PIPELINES_API_KEY: KEY,
        FILTERS_DIR: filters,
        DATA_DIR: path.join(root, name, 'data'),
        VALVES_DIR: path.join(root, name, 'valves'),
        STATE_TIMEOUT_MS: '300',
        WATCH_FILTERS: 'false',
      });
      servers.push(...(await Promise.all([startServerProcess(env('a')), startServerProcess(env('b'))])));
      const [a, b] = servers as [ServerProcess, ServerProcess];
      const serversMs = Date.now() - startedAt;
      const ready = await call(a, 'GET', '/readyz');
      expect(ready.body.topology).toEqual({ kind: 'sentinel' });
      const health = await call(a, 'GET', '/health');
      expect(health.body.store.topology).toEqual({
        kind: 'sentinel',
        primary: `127.0.0.1:${sentinel().nodes[0]!.port}`,
      });

      // State written before the fault: a user's valves and a chat's flags.
      const saved = await call(a, 'POST', '/context/valves/user/update?user_id=u-failover', {
        max_tokens: '500',
        recent: '',
        default_flags: '',
      });
      expect(saved.status).toBe(200);
      const user = { id: 'u-failover', role: 'user' };
      const flagged = await call(a, 'POST', '/context/filter/inlet', {
        user,
        body: {
          model: 'gpt-4o',
          metadata: { chat_id: 'chat-flags' },
          messages: [{ role: 'user', content: '!+recent=9 hello' }],
        },
      });
      expect(flagged.status).toBe(200);

      // Load: each replica records replies one after another until told to stop.
      const answered = new Map<string, string>();
      let failed = 0;
      let running = true;
      let sequence = 0;
      const loop = async (server: ServerProcess, name: string) => {
        while (running) {
          const prompt = 1000 + sequence++;
          const id = `${name}-${prompt}`;
          const response = await call(server, 'POST', '/accounting/filter/outlet', {
            user,
            body: outletBody(id, prompt),
          }).catch(() => undefined);
          if (response?.status === 200) answered.set(id, String(prompt / 1e7));
          else failed += 1;
        }
      };
      const loops = [loop(a, 'a'), loop(b, 'b')];
      await waitFor(() => answered.size >= 20, { timeoutMs: 30_000 });

      const killedAt = Date.now();
      const beforeKill = answered.size;
      await sentinel().nodes[0]!.kill();
      const promoted = `127.0.0.1:${sentinel().nodes[1]!.port}`;
      // Writes resume when both replicas write to the promoted primary again with nothing left in their journals.
      await waitFor(
        async () =>
          (await Promise.all([a, b].map((server) => call(server, 'GET', '/health')))).map((h) => h.body.store),
        {
          until: (stores) => stores.every((store) => store.ok === true && store.topology?.primary === promoted),
          timeoutMs: 60_000, // a liveness bound: on a loaded machine an election can fail and be retried
          intervalMs: 50,
        },
      );
      const resumedMs = Date.now() - killedAt;
      const atResume = answered.size;
      await waitFor(() => answered.size >= atResume + 20, { timeoutMs: 30_000 });
      running = false;
      await Promise.all(loops);
      console.log(
        `[sentinel failover] kill -9 of the primary: writes resumed on the promoted replica after ${resumedMs} ms ` +
          `(sentinel down-after 500 ms); ${answered.size} records answered (${beforeKill} before the kill, ` +
          `${atResume - beforeKill} during the failover, ${answered.size - atResume} after), ${failed} refused`,
      );
      expect(failed).toBe(0);
      const loadedMs = Date.now() - startedAt;

      await waitFor(async () =>
        (await Promise.all([a, b].map((s) => call(s, 'GET', '/health')))).every((h) => h.body.store.queued === 0),
      );
      const expected = formatDecimal(add(...[...answered.values()].map((cost) => parseDecimal(cost) ?? 0n)));
      for (const server of [a, b]) {
        const usage = await call(server, 'GET', `/usage?user=${user.id}&chat=chat-failover&limit=5000`);
        const ids: string[] = usage.body.records.map((record: { messageId: string }) => record.messageId);
        expect(ids).toHaveLength(answered.size);
        expect(new Set(ids)).toEqual(new Set(answered.keys()));
        expect(usage.body.totals.cost).toBe(expected);
      }
      // The spend counter the spend limit reads holds every answered record once.
      const store = await topologyStore(sentinel(), { prefix });
      try {
        const month = `m:${new Date().toISOString().slice(0, 7)}`;
        expect(await store.usage.spent(user.id, month)).toBe(expected);
      } finally {
        await store.close();
      }
      // Valves and flags written before the kill are still there, read through the other replica.
      expect((await call(b, 'GET', '/context/valves/user?user_id=u-failover')).body.max_tokens).toBe(500);
      const flags = await call(b, 'POST', '/context/filter/outlet', {
        user,
        body: {
          model: 'gpt-4o',
          chat_id: 'chat-flags',
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
      expect(flags.body.messages.at(-1).content).toMatch(/recent=9/);
      console.log(
        `[sentinel failover] phases: two replicas started ${serversMs} ms, load + failover until ${loadedMs} ms, ` +
          `checks until ${Date.now() - startedAt} ms`,
      );
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
      remove();
    }
  }, 120_000);
});
