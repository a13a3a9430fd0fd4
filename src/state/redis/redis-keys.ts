/** Escape Redis glob metacharacters so a literal string can be used in a SCAN MATCH pattern. */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\^-]/g, (character) => `\\${character}`);
}

/** The global ledger stream; each user's copy is `ledger:user:<id>`. */
export const USAGE_STREAM = 'ledger';
/** The stream holding one user's copy of their records. */
export const userUsageStream = (userId: string) => `${USAGE_STREAM}:user:${userId}`;

/**
 * The key layout under one deployment prefix (REDIS_PREFIX). Each kind of state has its
 * own letter so `keys()` over documents never sees a stream, lease or channel:
 * `d:` documents and counters, `s:` streams (`:h` hash id→json, `:z` time index, `:n`
 * insertion counter), `u:spend:` spend counters per user, `l:` leases, `q:` capped lists, `w:` sliding windows, `c:` pub/sub channels.
 *
 * With `cluster`, the keys one script touches share a hash tag (`{…}`), so they live in one slot: a stream's
 * three keys share `{<prefix>s:<stream>}`; a user's ledger copy, spend counters and holds share the tag of the
 * user's stream `{<prefix>s:ledger:user:<id>}`; the daily aggregates and the ledger markers share the global
 * ledger's tag `{<prefix>s:ledger}`. Without it the names are the single-node names every earlier version wrote
 * (a single node or a Sentinel primary keeps its data).
 */
export function redisKeys(prefix: string, options: { cluster?: boolean } = {}) {
  const cluster = options.cluster === true;
  const documents = `${prefix}d:`;
  /** The name a stream's keys start with: a hash tag on Cluster. */
  const streamBase = (stream: string) => (cluster ? `{${prefix}s:${stream}}` : `${prefix}s:${stream}`);
  const ledgerBase = streamBase(USAGE_STREAM);
  const userBase = (userId: string) => streamBase(userUsageStream(userId));
  return {
    cluster,
    document: (key: string) => documents + key,
    /** SCAN pattern for the documents whose key starts with `keyPrefix`. */
    documentPattern: (keyPrefix: string) => `${escapeGlob(documents + keyPrefix)}*`,
    /** The caller's key from a full document key. */
    documentKey: (fullKey: string) => fullKey.slice(documents.length),
    streamHash: (stream: string) => `${streamBase(stream)}:h`,
    streamIndex: (stream: string) => `${streamBase(stream)}:z`,
    streamSequence: (stream: string) => `${streamBase(stream)}:n`,
    /** A user's spend counters (hash `<period>:hi` / `<period>:lo`, see splitCost). */
    spend: (userId: string) => (cluster ? `${userBase(userId)}:spend` : `${prefix}u:spend:${userId}`),
    /** A user's spend holds (hash `sum` and `h:<id>` → nano-dollars) and their expiry index (zset id → epoch ms). */
    holds: (userId: string) => (cluster ? `${userBase(userId)}:hold` : `${prefix}u:hold:${userId}`),
    holdExpiry: (userId: string) => (cluster ? `${userBase(userId)}:hold-exp` : `${prefix}u:hold-exp:${userId}`),
    /**
     * A shared cap scope's spend counters (hash as `spend`), its holds (hash `sum` and member → nano-dollars) and their
     * expiry index (zset member → epoch ms). On Cluster in the global ledger's slot: the record script counts a reply
     * toward its scopes in the same step, and one script checks and holds all of a request's scopes.
     */
    scopeSpend: (scope: string) => (cluster ? `${ledgerBase}:scope-spend:${scope}` : `${prefix}u:scope-spend:${scope}`),
    scopeHolds: (scope: string) => (cluster ? `${ledgerBase}:scope-hold:${scope}` : `${prefix}u:scope-hold:${scope}`),
    scopeHoldExpiry: (scope: string) =>
      cluster ? `${ledgerBase}:scope-hold-exp:${scope}` : `${prefix}u:scope-hold-exp:${scope}`,
    /** Daily aggregates of one UTC day (hash `<dimension>|<counter>|<key>` → integer, see dailyFields). */
    day: (day: string) => (cluster ? `${ledgerBase}:day:${day}` : `${prefix}u:day:${day}`),
    /** The first ledger insertion number written with daily aggregates; and the marker of their one-time backfill. */
    dailyFrom: cluster ? `${ledgerBase}:day-from` : `${prefix}u:day-from`,
    dailyBackfilled: cluster ? `${ledgerBase}:day-backfilled` : `${prefix}u:day-backfilled`,
    /** The first ledger insertion number written with spend counters; and the marker of the one-time backfill. */
    countedFrom: cluster ? `${ledgerBase}:spend-from` : `${prefix}u:spend-from`,
    backfilled: cluster ? `${ledgerBase}:spend-backfilled` : `${prefix}u:spend-backfilled`,
    lease: (name: string) => `${prefix}l:${name}`,
    /** A capped list (newest first). */
    list: (key: string) => `${prefix}q:${key}`,
    /** A sliding window's admission times (sorted set, see windowAdmit). */
    window: (key: string) => `${prefix}w:${key}`,
    channel: (channel: string) => `${prefix}c:${channel}`,
  };
}

/** The key layout of one prefix. */
export type RedisKeys = ReturnType<typeof redisKeys>;
