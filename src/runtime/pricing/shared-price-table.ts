import type { Logger } from '../../core/util/logger.js';
import type { Lease, StateStore } from '../../state/types.js';
import { modelCount, type PriceTable } from '../../domain/pricing/price-table.js';
import { parseStoredTable } from '../../domain/pricing/table-files.js';
import type { PriceBook } from '../../domain/pricing/price-book.js';

/** State-store key of the shared last good table. */
export const STORE_KEY = 'pricing:last-good';
/** Channel announcing a new table to the other replicas. */
export const UPDATE_CHANNEL = 'pricing:updated';
const LEASE_NAME = 'pricing:refresh';

/**
 * The price table shared between replicas through the state store: the last good table under
 * STORE_KEY, announced on UPDATE_CHANNEL, and the lease that lets one replica refresh at a time.
 * Owns the subscription to the channel.
 */
export class SharedPriceTable {
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly store: StateStore,
    private readonly logger: Logger,
  ) {}

  /** The stored table, if the store answers and holds a valid one. */
  async read(): Promise<PriceTable | undefined> {
    return parseStoredTable(await this.store.get(STORE_KEY).catch(() => undefined));
  }

  /** Adopt the stored table into `book` when it is newer than the one in use and not empty. */
  async adoptInto(book: PriceBook): Promise<boolean> {
    const stored = await this.read();
    if (!stored || stored.fetchedAt <= book.table.fetchedAt || modelCount(stored) === 0) return false;
    book.use({ ...stored, source: 'live' });
    this.logger.info({ models: modelCount(stored) }, 'pricing: adopted the table another replica fetched');
    return true;
  }

  /** Adopt every table another replica announces from now on (until `stop`). */
  follow(book: PriceBook): void {
    this.unsubscribe = this.store.subscribe(UPDATE_CHANNEL, () => void this.adoptInto(book));
  }

  /** Store a freshly fetched table and announce it; failures are logged, never thrown. */
  async save(table: PriceTable): Promise<void> {
    await this.store
      .set(STORE_KEY, table)
      .catch((error: unknown) => this.logger.warn({ err: error }, 'pricing: cannot save table to the store'));
    await this.store.publish(UPDATE_CHANNEL, String(table.fetchedAt)).catch(() => undefined);
  }

  /**
   * Claim the refresh for `ttlMs`: the lease, `'held'` when another replica holds it, or
   * undefined when the store is away (the caller refreshes without it).
   */
  async claimRefresh(ttlMs: number): Promise<Lease | 'held' | undefined> {
    let unavailable = false;
    const lease = await this.store.acquireLease(LEASE_NAME, ttlMs).catch((error: unknown) => {
      unavailable = true;
      this.logger.warn({ err: error }, 'pricing: refresh lease unavailable (state store away); refreshing without it');
      return undefined;
    });
    return lease ?? (unavailable ? undefined : 'held');
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }
}
