import type { Config, RedisSettingName } from '../core/config.js';
import { ConfigError } from '../core/errors/index.js';
import type { Logger } from '../core/util/logger.js';
import { StoreOutageLog } from '../core/util/store-outage.js';
import { describeTopology, redisTopology } from './redis/redis-topology.js';
import { openSqliteDatabase } from './sqlite/open-sqlite-database.js';
import { SqliteStateStore } from './sqlite/sqlite-state-store.js';
import type { StateStore } from './types.js';

/** What the factory reads from the configuration. */
export type StateStoreConfig = Pick<Config, 'REDIS_PREFIX' | 'STATE_TIMEOUT_MS' | 'LEDGER_QUEUE_MAX' | 'sqlitePath'> &
  Partial<Pick<Config, RedisSettingName>> &
  Partial<Pick<Config, 'ledgerJournalPath' | 'LEDGER_JOURNAL_RESERVE_KB'>>;

/**
 * Build the state store the configuration asks for: Redis when REDIS_URL, REDIS_SENTINELS or
 * REDIS_CLUSTER_NODES is set (for several replicas), else the embedded SQLite file at `config.sqlitePath`.
 * Never throws because Redis is down (the store starts degraded and reconnects by itself);
 * throws ConfigError when the SQLite file is unwritable or corrupt, or when Redis refuses the password or its TLS
 * certificate is not trusted (at start-up, where retrying cannot help).
 * @example const store = await createStateStore({ config: loadConfig(), logger });
 */
export async function createStateStore({
  config,
  logger,
  outage = new StoreOutageLog(logger),
}: {
  config: StateStoreConfig;
  logger: Logger;
  /** The store's outage log (default: a new one; see StoreOutageLog). */
  outage?: StoreOutageLog;
}): Promise<StateStore> {
  const topology = redisTopology(config);
  if (topology) {
    // Imported only for Redis: the embedded default starts without loading ioredis.
    const { RedisStateStore } = await import('./redis/redis-state-store.js');
    const store = new RedisStateStore({
      topology,
      prefix: config.REDIS_PREFIX,
      logger,
      outage,
      timeoutMs: config.STATE_TIMEOUT_MS,
      queueMax: config.LEDGER_QUEUE_MAX,
      journalFile: config.ledgerJournalPath,
      journalReserveBytes: reserveBytes(config),
    });
    // Give the first connection a moment so early requests are not refused needlessly.
    const ready = await store.waitUntilReady(Math.min(2000, config.STATE_TIMEOUT_MS * 4));
    // A refused password or certificate is a configuration error, not an outage: retrying cannot fix it.
    const refusal = store.refusal;
    if (!ready && refusal) {
      await store.close();
      throw new ConfigError(`${describeTopology(topology)}: ${refusal}`);
    }
    if (ready)
      logger.info(
        { backend: 'redis', redis: describeTopology(topology), topology: topology.kind, prefix: config.REDIS_PREFIX },
        'state backend: Redis',
      );
    return store;
  }
  const db = openSqliteDatabase(config.sqlitePath, { busyTimeoutMs: Math.max(config.STATE_TIMEOUT_MS, 1000) });
  logger.info({ backend: 'sqlite', file: config.sqlitePath }, 'state backend: SQLite');
  return new SqliteStateStore({
    db,
    file: config.sqlitePath,
    logger,
    outage,
    journalFile: config.ledgerJournalPath,
    journalMax: config.LEDGER_QUEUE_MAX,
    journalReserveBytes: reserveBytes(config),
  });
}

/** LEDGER_JOURNAL_RESERVE_KB in bytes (undefined: the journal's default). */
function reserveBytes(config: StateStoreConfig): number | undefined {
  const kb = config.LEDGER_JOURNAL_RESERVE_KB;
  return kb === undefined ? undefined : kb * 1024;
}
