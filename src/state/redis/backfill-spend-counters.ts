import type { Logger } from '../../util/logger.js';
import { periodKey } from '../../usage/budget-periods.js';
import { splitCost } from '../../usage/cost-parts.js';
import type { UsageRecord } from '../../usage/types.js';
import type { Lease } from '../types.js';
import { USAGE_STREAM, type RedisCall } from './redis-stream-store.js';
import type { RedisKeys } from './redis-keys.js';
import { applyBackfillScript, countedFromScript } from './redis-scripts.js';
import { StreamWalker } from './stream-walker.js';

/** What backfillSpendCounters needs from the store. */
export interface BackfillOptions {
  call: RedisCall;
  layout: RedisKeys;
  logger: Logger;
  acquireLease: (name: string, ttlMs: number) => Promise<Lease | undefined>;
}

/**
 * Give the records an older Eunoe wrote (before spend counters existed) their counters, once
 * per deployment prefix. The first insertion number with counters is fixed atomically first,
 * so the records summed here (those before it) and those the record script counts never
 * overlap; the sums and the done-marker are applied in one script, so a crash or a second
 * replica can never apply them twice. Old replicas still writing after that point are not
 * counted: upgrade every replica.
 * @returns how many records were counted, or undefined when done already or another replica is at it
 */
export async function backfillSpendCounters({
  call,
  layout,
  logger,
  acquireLease,
}: BackfillOptions): Promise<number | undefined> {
  const [done, anyRecord] = await call('backfill', (client) =>
    Promise.all([client.exists(layout.backfilled), client.exists(layout.streamSequence(USAGE_STREAM))]),
  );
  if (done === 1 || anyRecord === 0) return undefined; // an empty ledger has nothing to backfill (and gets no keys)
  const lease = await acquireLease('ledger-spend-backfill', 10 * 60_000);
  if (!lease) return undefined;
  try {
    const from = Number(
      await call('backfill', (client) =>
        countedFromScript.run(client, [layout.countedFrom, layout.streamSequence(USAGE_STREAM)], []),
      ),
    );
    const sums = new Map<string, bigint>();
    if (from <= 1)
      return (await call('backfill', (client) => applyBackfillScript.run(client, [layout.backfilled], []))) === 1
        ? 0
        : undefined;
    const add = (key: string, field: string, amount: bigint) => {
      const name = `${key}\u0000${field}`;
      sums.set(name, (sums.get(name) ?? 0n) + amount);
    };
    const walker = new StreamWalker(call, layout, USAGE_STREAM, 'asc', '-inf', '+inf', 500);
    let counted = 0;
    for (;;) {
      const json = await walker.next();
      if (json === undefined) break;
      if (json === null || walker.seq >= from) continue;
      const record = JSON.parse(json) as Partial<UsageRecord>;
      if (typeof record.userId !== 'string' || typeof record.time !== 'number' || typeof record.cost !== 'string')
        continue;
      const { hi, lo } = splitCost(record.cost);
      for (const period of [periodKey('daily', record.time), periodKey('monthly', record.time)]) {
        add(layout.spend(record.userId), `${period}:hi`, hi);
        add(layout.spend(record.userId), `${period}:lo`, lo);
      }
      counted += 1;
    }
    const args = [...sums].flatMap(([name, amount]) => [...name.split('\u0000'), String(amount)]);
    const applied = await call('backfill', (client) => applyBackfillScript.run(client, [layout.backfilled], args));
    if (applied !== 1) return undefined;
    if (counted > 0)
      logger.info(
        { backend: 'redis', records: counted },
        `spend counters rebuilt for ${counted} ledger records written before this version`,
      );
    return counted;
  } finally {
    await lease.release().catch(() => undefined);
  }
}
