import { utcDay } from '../../usage/daily-usage.js';
import type { UsageRecord } from '../../usage/types.js';
import type { BackfillOptions } from './backfill-spend-counters.js';
import { dailyFields } from './daily-fields.js';
import { USAGE_STREAM } from './redis-stream-store.js';
import { applyBackfillScript, countedFromScript } from './redis-scripts.js';
import { StreamWalker } from './stream-walker.js';

/**
 * Give the records an older Eunoe wrote (before daily aggregates existed) their aggregates,
 * once per deployment prefix, as backfillSpendCounters does for spend counters: the first
 * insertion number with aggregates is fixed atomically first, so the records summed here
 * (those before it) and those the record script adds never overlap, and the sums and the
 * done-marker are applied in one script (a crash or a second replica never applies them twice).
 * @returns how many records were added, or undefined when done already or another replica is at it
 */
export async function backfillDailyAggregates({
  call,
  layout,
  logger,
  acquireLease,
}: BackfillOptions): Promise<number | undefined> {
  const [done, anyRecord] = await call('backfill', (client) =>
    Promise.all([client.exists(layout.dailyBackfilled), client.exists(layout.streamSequence(USAGE_STREAM))]),
  );
  if (done === 1 || anyRecord === 0) return undefined;
  const lease = await acquireLease('ledger-daily-backfill', 10 * 60_000);
  if (!lease) return undefined;
  try {
    const from = Number(
      await call('backfill', (client) =>
        countedFromScript.run(client, [layout.dailyFrom, layout.streamSequence(USAGE_STREAM)], []),
      ),
    );
    const sums = new Map<string, bigint>();
    const walker = new StreamWalker(call, layout, USAGE_STREAM, 'asc', '-inf', '+inf', 500);
    let counted = 0;
    while (from > 1) {
      const json = await walker.next();
      if (json === undefined) break;
      if (json === null || walker.seq >= from) continue;
      const record = JSON.parse(json) as UsageRecord;
      if (typeof record.userId !== 'string' || typeof record.time !== 'number' || typeof record.cost !== 'string')
        continue;
      const fields = dailyFields(record);
      const hash = layout.day(utcDay(record.time));
      for (let index = 0; index + 1 < fields.length; index += 2) {
        const name = `${hash}\u0000${fields[index]}`;
        sums.set(name, (sums.get(name) ?? 0n) + BigInt(fields[index + 1]!));
      }
      counted += 1;
    }
    const args = [...sums].flatMap(([name, amount]) => [...name.split('\u0000'), String(amount)]);
    const applied = await call('backfill', (client) => applyBackfillScript.run(client, [layout.dailyBackfilled], args));
    if (applied !== 1) return undefined;
    if (counted > 0)
      logger.info(
        { backend: 'redis', records: counted },
        `daily usage aggregates rebuilt for ${counted} ledger records written before this version`,
      );
    return counted;
  } finally {
    await lease.release().catch(() => undefined);
  }
}
