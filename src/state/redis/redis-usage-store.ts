import { formatDecimal } from '../../domain/pricing/decimal.js';
import { joinCost } from '../../domain/usage/cost-parts.js';
import type { UsageGroupBy } from '../../domain/usage/summarize-usage.js';
import type { UsageRecord } from '../../domain/usage/types.js';
import { UsageAccumulator } from '../../domain/usage/usage-accumulator.js';
import { parseCursor } from '../../domain/usage/usage-cursor.js';
import {
  matchesQuery,
  USAGE_CHUNK,
  yieldToEventLoop,
  type UsagePage,
  type UsageQuery,
  type UsageStore,
  type UsageSummary,
} from '../../domain/usage/usage-store.js';
import { userUsageStream, USAGE_STREAM, type RedisCall, type RedisStreamStore } from './redis-stream-store.js';
import type { RedisKeys } from './redis-keys.js';
import { StreamWalker, type WalkPosition } from './stream-walker.js';
import type { DailyDimension, DailyRow } from '../../domain/usage/daily-usage.js';
import { daysBetween } from '../../domain/usage/day-range.js';
import { parseDayHash } from './daily-fields.js';
import { RedisSpendHolds } from './redis-spend-holds.js';

/**
 * The ledger on Redis. A record, its user's copy and the user's day/month spend counters are
 * one Lua script (journaled while Redis is away), so `spent` is one HMGET. Queries walk the
 * user's stream (or the global one) in bounded pages by time and aggregate exactly in BigInt;
 * every page is its own round trip, so the event loop serves other requests in between.
 */
export class RedisUsageStore implements UsageStore {
  readonly holds: RedisSpendHolds;

  constructor(
    private readonly streams: RedisStreamStore,
    private readonly call: RedisCall,
    private readonly layout: RedisKeys,
  ) {
    this.holds = new RedisSpendHolds(call, layout);
  }

  record(record: UsageRecord): Promise<boolean> {
    return this.streams.record(record);
  }

  async spent(userId: string, key: string): Promise<string> {
    const [hi, lo] = await this.call('spent', (client) =>
      client.hmget(this.layout.spend(userId), `${key}:hi`, `${key}:lo`),
    );
    return formatDecimal(joinCost(hi, lo));
  }

  async scopeSpent(scope: string, key: string): Promise<string> {
    const [hi, lo] = await this.call('scopeSpent', (client) =>
      client.hmget(this.layout.scopeSpend(scope), `${key}:hi`, `${key}:lo`),
    );
    return formatDecimal(joinCost(hi, lo));
  }

  async daily(fromDay: string, toDay: string, dimension: DailyDimension): Promise<DailyRow[]> {
    const days = daysBetween(fromDay, toDay);
    if (days.length === 0) return [];
    // One pipelined HGETALL per day hash: a single round trip whatever the number of records.
    const replies = await this.call('daily', async (client) => {
      const pipeline = client.pipeline();
      for (const day of days) pipeline.hgetall(this.layout.day(day));
      return (await pipeline.exec()) ?? [];
    });
    return days.flatMap((day, index) => {
      const [error, hash] = replies[index] ?? [null, {}];
      if (error) throw error;
      return parseDayHash(day, (hash ?? {}) as Record<string, string>, dimension);
    });
  }

  async summarize(query: UsageQuery, groupBy?: UsageGroupBy): Promise<UsageSummary> {
    const accumulator = new UsageAccumulator(groupBy);
    await this.scan(query, (chunk) => {
      for (const record of chunk) accumulator.addRecord(record);
    });
    return accumulator.summary();
  }

  async latest(query: UsageQuery, limit: number, before?: string): Promise<UsagePage> {
    const start = before === undefined ? undefined : parseCursor(before);
    const walker = this.walker(
      query,
      'desc',
      Math.min(USAGE_CHUNK, limit + 1),
      start && { score: start.time, skip: start.seq },
    );
    const records: UsageRecord[] = [];
    let cursor: WalkPosition | undefined;
    let more = false;
    for (;;) {
      const record = await this.nextMatch(walker, query);
      if (!record) break;
      if (records.length === limit) {
        more = true;
        break;
      }
      records.push(record);
      cursor = walker.at;
    }
    return {
      records: records.reverse(),
      more,
      ...(more && cursor ? { before: `${cursor.score}.${cursor.skip}` } : {}),
    };
  }

  async scan(query: UsageQuery, visit: (chunk: UsageRecord[]) => void | Promise<void>): Promise<void> {
    const walker = this.walker(query, 'asc', USAGE_CHUNK);
    let chunk: UsageRecord[] = [];
    for (;;) {
      const record = await this.nextMatch(walker, query);
      if (record) chunk.push(record);
      if (chunk.length >= USAGE_CHUNK || (!record && chunk.length > 0)) {
        await visit(chunk);
        chunk = [];
        await yieldToEventLoop();
      }
      if (!record) return;
    }
  }

  private walker(query: UsageQuery, direction: 'asc' | 'desc', chunk: number, start?: WalkPosition): StreamWalker {
    const stream = query.userId === undefined ? USAGE_STREAM : userUsageStream(query.userId);
    const min = query.from === undefined ? '-inf' : String(query.from);
    const max = query.to === undefined ? '+inf' : `(${query.to}`;
    return new StreamWalker(this.call, this.layout, stream, direction, min, max, chunk, start);
  }

  /** The next record of the walk that matches the query (skipping others), or undefined at the end. */
  private async nextMatch(walker: StreamWalker, query: UsageQuery): Promise<UsageRecord | undefined> {
    for (;;) {
      const json = await walker.next();
      if (json === undefined) return undefined;
      if (json === null) continue;
      const record = JSON.parse(json) as UsageRecord;
      if (matchesQuery(record, query)) return record;
    }
  }
}
