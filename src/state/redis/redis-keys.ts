/** Escape Redis glob metacharacters so a literal string can be used in a SCAN MATCH pattern. */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\^-]/g, (character) => `\\${character}`);
}

/**
 * The key layout under one deployment prefix (REDIS_PREFIX). Each kind of state has its
 * own letter so `keys()` over documents never sees a stream, lease or channel:
 * `d:` documents and counters, `s:` streams (`:h` hash id→json, `:z` time index, `:n`
 * insertion counter), `u:spend:` spend counters per user, `l:` leases, `q:` capped lists, `c:` pub/sub channels.
 */
export function redisKeys(prefix: string) {
  const documents = `${prefix}d:`;
  return {
    document: (key: string) => documents + key,
    /** SCAN pattern for the documents whose key starts with `keyPrefix`. */
    documentPattern: (keyPrefix: string) => `${escapeGlob(documents + keyPrefix)}*`,
    /** The caller's key from a full document key. */
    documentKey: (fullKey: string) => fullKey.slice(documents.length),
    streamHash: (stream: string) => `${prefix}s:${stream}:h`,
    streamIndex: (stream: string) => `${prefix}s:${stream}:z`,
    streamSequence: (stream: string) => `${prefix}s:${stream}:n`,
    /** A user's spend counters (hash `<period>:hi` / `<period>:lo`, see splitCost). */
    spend: (userId: string) => `${prefix}u:spend:${userId}`,
    /** A user's spend holds (hash `sum` and `h:<id>` → nano-dollars) and their expiry index (zset id → epoch ms). */
    holds: (userId: string) => `${prefix}u:hold:${userId}`,
    holdExpiry: (userId: string) => `${prefix}u:hold-exp:${userId}`,
    /** Daily aggregates of one UTC day (hash `<dimension>|<counter>|<key>` → integer, see dailyFields). */
    day: (day: string) => `${prefix}u:day:${day}`,
    /** The first ledger insertion number written with daily aggregates; and the marker of their one-time backfill. */
    dailyFrom: `${prefix}u:day-from`,
    dailyBackfilled: `${prefix}u:day-backfilled`,
    /** The first ledger insertion number written with spend counters; and the marker of the one-time backfill. */
    countedFrom: `${prefix}u:spend-from`,
    backfilled: `${prefix}u:spend-backfilled`,
    lease: (name: string) => `${prefix}l:${name}`,
    /** A capped list (newest first). */
    list: (key: string) => `${prefix}q:${key}`,
    channel: (channel: string) => `${prefix}c:${channel}`,
  };
}

/** The key layout of one prefix. */
export type RedisKeys = ReturnType<typeof redisKeys>;

/** The URL with any password replaced by `***`, for logs. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable REDIS_URL>';
  }
}
