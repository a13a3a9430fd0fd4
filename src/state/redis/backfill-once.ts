import type { Logger } from '../../core/util/logger.js';
import type { UsageRecord } from '../../domain/usage/types.js';
import { storedRecord } from '../../domain/usage/stored-record.js';
import type { Lease } from '../types.js';
import { USAGE_STREAM, type RedisCall } from './redis-stream-store.js';
import type { RedisKeys } from './redis-keys.js';
import { applyBackfillScript, countedFromScript } from './redis-scripts.js';
import { StreamWalker } from './stream-walker.js';

/** What a one-time ledger backfill needs from the store. */
export interface BackfillOptions {
  call: RedisCall;
  layout: RedisKeys;
  logger: Logger;
  acquireLease: (name: string, ttlMs: number) => Promise<Lease | undefined>;
}

/** One kind of per-record sums (hash fields) that the record script keeps and older records lack. */
export interface BackfillKind {
  /** Name of the lease that keeps a second replica out while one walks the ledger. */
  lease: string;
  /** Key of the first ledger insertion number the record script already adds these sums for. */
  fromKey: string;
  /** Key of the done-marker. */
  doneKey: string;
  /** What the log line says was rebuilt ("spend counters"). */
  what: string;
  /** Add one record's amounts, as (hash key, field, amount). */
  sums(record: UsageRecord, add: (key: string, field: string, amount: bigint) => void): void;
}

const LEASE_TTL_MS = 10 * 60_000;
const WALK_CHUNK = 500;

/**
 * Give the records an older Eunoe wrote (before the record script kept `kind`'s sums) their sums,
 * once per deployment prefix. The first insertion number with sums is fixed atomically first, so
 * the records summed here (those before it) and those the record script adds never overlap; the
 * sums and the done-marker are applied in one script, so a crash or a second replica can never
 * apply them twice. Old replicas still writing after that point are not counted: upgrade every replica.
 * @returns how many records were summed, or undefined when done already or another replica is at it
 */
export async function backfillOnce(
  { call, layout, logger, acquireLease }: BackfillOptions,
  kind: BackfillKind,
): Promise<number | undefined> {
  const [done, anyRecord] = await call('backfill', (client) =>
    Promise.all([client.exists(kind.doneKey), client.exists(layout.streamSequence(USAGE_STREAM))]),
  );
  if (done === 1 || anyRecord === 0) return undefined; // an empty ledger has nothing to backfill (and gets no keys)
  const lease = await acquireLease(kind.lease, LEASE_TTL_MS);
  if (!lease) return undefined;
  try {
    const from = Number(
      await call('backfill', (client) =>
        countedFromScript.run(client, [kind.fromKey, layout.streamSequence(USAGE_STREAM)], []),
      ),
    );
    const sums = new Map<string, bigint>();
    const add = (key: string, field: string, amount: bigint) => {
      const name = `${key}\u0000${field}`;
      sums.set(name, (sums.get(name) ?? 0n) + amount);
    };
    let counted = 0;
    let unreadable = 0;
    if (from > 1) {
      const walker = new StreamWalker(call, layout, USAGE_STREAM, 'asc', '-inf', '+inf', WALK_CHUNK);
      for (;;) {
        const json = await walker.next();
        if (json === undefined) break;
        if (json === null || walker.seq >= from) continue;
        const record = storedRecord(json);
        if (
          !record ||
          typeof record.userId !== 'string' ||
          typeof record.time !== 'number' ||
          typeof record.cost !== 'string'
        ) {
          unreadable += 1;
          continue;
        }
        kind.sums(record as UsageRecord, add);
        counted += 1;
      }
    }
    const args = [...sums].flatMap(([name, amount]) => [...name.split('\u0000'), String(amount)]);
    const applied = await call('backfill', (client) => applyBackfillScript.run(client, [kind.doneKey], args));
    if (applied !== 1) return undefined;
    // A damaged entry must not keep every other record from its sums (the walk would fail at every start).
    if (unreadable > 0)
      logger.warn(
        { backend: 'redis', records: unreadable },
        `${kind.what}: ${unreadable} ledger entries written before this version are not records and were skipped`,
      );
    if (counted > 0)
      logger.info(
        { backend: 'redis', records: counted },
        `${kind.what} rebuilt for ${counted} ledger records written before this version`,
      );
    return counted;
  } finally {
    await lease.release().catch(() => undefined);
  }
}
