import type { Cluster } from 'ioredis';

/** How long a primary's count of connected replicas is trusted. */
const REPLICA_CHECK_MS = 1000;
/** Most slot keys whose primary's replica count is remembered (the memo is emptied past it). */
const MAX_REMEMBERED = 10_000;

/**
 * Cluster: wait until a replica holds what was written to the slot of `key` (WAIT 1). ioredis' Cluster client has one
 * connection per node and sends a pipeline whose keyed commands share a slot to that slot's primary on it, so a
 * pipeline `EXISTS key; WAIT 1 ms` goes down the connection the ledger script used and WAIT covers that write. WAIT is
 * sent only while that primary has a replica connected (its `INFO replication`, asked at most once a second per key):
 * a replica promoted after a failover has none until one is attached, and its writes stand as on one node.
 */
export class ClusterReplicaWait {
  private readonly replicas = new Map<string, { count: number; at: number }>();

  constructor(private readonly waitMs: number) {}

  /** Resolve once a replica acknowledged (or the primary has none); throw when none did within the wait. */
  async confirm(cluster: Cluster, key: string): Promise<void> {
    if ((await this.replicaCount(cluster, key)) === 0) return;
    const answers = await cluster.pipeline().exists(key).wait(1, this.waitMs).exec();
    const [error, acknowledged] = answers?.[1] ?? [new Error('no answer to WAIT')];
    if (error) throw error;
    if (Number(acknowledged) >= 1) return;
    this.replicas.delete(key); // look again at the next write
    throw new Error(`no replica acknowledged the ledger write within ${this.waitMs} ms`);
  }

  private async replicaCount(cluster: Cluster, key: string): Promise<number> {
    const known = this.replicas.get(key);
    if (known && Date.now() - known.at <= REPLICA_CHECK_MS) return known.count;
    const answers = await cluster.pipeline().exists(key).info('replication').exec();
    const [error, info] = answers?.[1] ?? [new Error('no answer to INFO')];
    if (error) throw error;
    const count = Number(/connected_slaves:(\d+)/.exec(String(info))?.[1] ?? '0');
    if (this.replicas.size >= MAX_REMEMBERED) this.replicas.clear();
    this.replicas.set(key, { count, at: Date.now() });
    return count;
  }
}
