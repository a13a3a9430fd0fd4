/**
 * A bounded memo with approximate least-recently-used eviction at the cost of a Map lookup:
 * entries live in a young and an old generation; a hit in the old one is copied to the young;
 * when the young reaches `limit`, it becomes the old one and the previous old is dropped. At
 * most 2 × limit entries are held.
 */
export class TwoGenerationMap<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();

  constructor(private readonly limit: number) {}

  get(key: K): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const aged = this.old.get(key);
    if (aged !== undefined) this.set(key, aged);
    return aged;
  }

  set(key: K, value: V): void {
    this.young.set(key, value);
    if (this.young.size >= this.limit) {
      this.old = this.young;
      this.young = new Map();
    }
  }

  /** Drops every entry. */
  clear(): void {
    this.young = new Map();
    this.old = new Map();
  }

  /** Entries held (both generations; a key may be counted twice). */
  get size(): number {
    return this.young.size + this.old.size;
  }
}
