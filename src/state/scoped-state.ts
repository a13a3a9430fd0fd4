import type {
  Lease,
  ListPush,
  ListPushOptions,
  RangeQuery,
  SetOptions,
  StateStore,
  StoreHealth,
  StreamRecord,
  WindowAdmission,
  WindowAdmitOptions,
} from './types.js';
import type { StoreOutageLog } from '../core/util/store-outage.js';

/**
 * A view of a StateStore whose keys, streams, leases and channels all live under
 * `prefix` (e.g. `f:context:`), so two filters cannot clobber each other's keys.
 */
export class ScopedState implements StateStore {
  readonly backend: StateStore['backend'];

  constructor(
    private readonly store: StateStore,
    readonly prefix: string,
  ) {
    this.backend = store.backend;
  }

  /** The outage log of the store underneath. */
  get outage(): StoreOutageLog | undefined {
    return this.store.outage;
  }

  /** A nested scope: `scope('chat:')` under `f:context:` gives `f:context:chat:`. */
  scope(suffix: string): ScopedState {
    return new ScopedState(this.store, this.prefix + suffix);
  }

  private k(key: string): string {
    return this.prefix + key;
  }

  get<T = unknown>(key: string): Promise<T | undefined> {
    return this.store.get<T>(this.k(key));
  }
  getMany<T = unknown>(keys: readonly string[]): Promise<(T | undefined)[]> {
    return this.store.getMany<T>(keys.map((key) => this.k(key)));
  }
  set(key: string, value: unknown, options?: SetOptions): Promise<void> {
    return this.store.set(this.k(key), value, options);
  }
  setMany(entries: readonly { key: string; value: unknown; ttlMs?: number }[]): Promise<void> {
    return this.store.setMany(entries.map((entry) => ({ ...entry, key: this.k(entry.key) })));
  }
  delete(key: string): Promise<boolean> {
    return this.store.delete(this.k(key));
  }
  deleteMany(keys: readonly string[]): Promise<number> {
    return this.store.deleteMany(keys.map((key) => this.k(key)));
  }
  async keys(prefix: string): Promise<string[]> {
    const found = await this.store.keys(this.k(prefix));
    return found.map((key) => key.slice(this.prefix.length));
  }
  compareAndSet(key: string, expected: unknown, next: unknown, options?: SetOptions): Promise<boolean> {
    return this.store.compareAndSet(this.k(key), expected, next, options);
  }
  listPush(key: string, item: string, options: ListPushOptions): Promise<string[]> {
    return this.store.listPush(this.k(key), item, options);
  }
  listPushMany(pushes: readonly ListPush[]): Promise<string[][]> {
    return this.store.listPushMany(pushes.map((push) => ({ ...push, key: this.k(push.key) })));
  }
  listRange(key: string, limit?: number): Promise<string[]> {
    return this.store.listRange(this.k(key), limit);
  }
  windowAdmit(key: string, options: WindowAdmitOptions): Promise<WindowAdmission> {
    return this.store.windowAdmit(this.k(key), options);
  }
  increment(key: string, by?: number, options?: SetOptions): Promise<number> {
    return this.store.increment(this.k(key), by, options);
  }
  append<T extends Record<string, unknown>>(stream: string, record: StreamRecord<T>): Promise<boolean> {
    return this.store.append(this.k(stream), record);
  }
  range<T extends Record<string, unknown>>(stream: string, query?: RangeQuery): Promise<StreamRecord<T>[]> {
    return this.store.range<T>(this.k(stream), query);
  }
  acquireLease(name: string, ttlMs: number): Promise<Lease | undefined> {
    return this.store.acquireLease(this.k(name), ttlMs);
  }
  publish(channel: string, message: string): Promise<void> {
    return this.store.publish(this.k(channel), message);
  }
  subscribe(channel: string, handler: (message: string) => void): () => void {
    return this.store.subscribe(this.k(channel), handler);
  }
  health(): StoreHealth {
    return this.store.health();
  }
  /** Closing a scope never closes the shared store. */
  async close(): Promise<void> {}
}
