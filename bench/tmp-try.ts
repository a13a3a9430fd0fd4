import { startRedisSentinel, redisCommand } from './lib/redis-topologies.js';
import { RedisStateStore } from '../src/state/redis/redis-state-store.js';
import { redisTopology } from '../src/state/redis/redis-topology.js';
import { silentLogger } from '../src/core/util/logger.js';
const s = await startRedisSentinel();
const store = new RedisStateStore({
  topology: redisTopology(s.env)!,
  prefix: 'x:',
  logger: silentLogger(),
  timeoutMs: 300,
  queueMax: 1000,
});
console.log(await store.waitUntilReady(5000), store.health());
const t = Date.now();
await s.nodes[0]!.kill();
for (let i = 0; i < 40; i++) {
  await new Promise((r) => setTimeout(r, 500));
  let err = '';
  try {
    await store.set('k', i);
  } catch (e) {
    err = String(e).slice(0, 100);
  }
  const m = await redisCommand(s.sentinels[0]!.port, 'SENTINEL GET-MASTER-ADDR-BY-NAME eunoe');
  console.log(
    Date.now() - t,
    store.client.status,
    JSON.stringify(store.health().topology),
    err,
    m.replace(/\r\n/g, ' '),
  );
}
await store.close();
await s.stop();
