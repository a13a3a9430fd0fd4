import { createHash } from 'node:crypto';
import type { RedisClient } from './create-redis-client.js';
import { errorMessage } from '../../core/util/error-message.js';

/** A Lua script run by SHA (EVALSHA), loading it with EVAL when the server does not know it yet. */
export class LuaScript {
  private readonly sha: string;

  constructor(
    readonly name: string,
    private readonly source: string,
    /** How many keys it takes; `variadic`: any number (as many as its arguments say). */
    private readonly keyCount: number | 'variadic',
  ) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /** Run against `client` with the given keys and arguments. */
  async run(client: RedisClient, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    if (this.keyCount !== 'variadic' && keys.length !== this.keyCount)
      throw new Error(`${this.name} takes ${this.keyCount} keys`);
    try {
      return await client.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!String(errorMessage(error)).startsWith('NOSCRIPT')) throw error;
      return client.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

/**
 * Lua that checks each key's type before a script writes anything (Redis does not undo a script's earlier writes when
 * a later command fails): KEYS[i] must be `kinds[i]` or absent, else a WRONGTYPE error and nothing written.
 */
export function checkKeyTypes(kinds: readonly ('hash' | 'zset' | 'string')[]): string {
  return `for i, kind in ipairs({${kinds.map((kind) => `'${kind}'`).join(', ')}}) do
  local found = redis.call('TYPE', KEYS[i]).ok
  if found ~= 'none' and found ~= kind then
    return redis.error_reply('WRONGTYPE ' .. KEYS[i] .. ' holds a ' .. found .. ', not a ' .. kind .. '; nothing was written')
  end
end
`;
}

/**
 * Lua that stores a record once: HSETNX the json (ARGV[3]) under its id (ARGV[1]) in KEYS[1], returning 0 when it was
 * there; else `seq` (KEYS[3]'s next insertion number) and `member` indexed at ARGV[2] in KEYS[2].
 */
export const STORE_RECORD_ONCE = `if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[3]) == 0 then return 0 end
local seq = redis.call('INCR', KEYS[3])
local member = string.format('%016d', seq) .. ':' .. ARGV[1]
redis.call('ZADD', KEYS[2], ARGV[2], member)
`;

/** Set KEYS[1] to ARGV[3] (TTL ARGV[4] ms, 0 = none) when it is absent (ARGV[1]='absent') or equals ARGV[2]. Returns {1} or {0, current}. */
export const compareAndSetScript = new LuaScript(
  'compareAndSet',
  `local current = redis.call('GET', KEYS[1])
if ARGV[1] == 'absent' then
  if current then return {0, current} end
elseif current ~= ARGV[2] then
  if current then return {0, current} end
  return {0}
end
if tonumber(ARGV[4]) > 0 then redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4]) else redis.call('SET', KEYS[1], ARGV[3]) end
return {1}`,
  1,
);

/** INCRBYFLOAT KEYS[1] by ARGV[1]; a TTL of ARGV[2] ms (0 = none) applies only when the counter is created. */
export const incrementScript = new LuaScript(
  'increment',
  `local existed = redis.call('EXISTS', KEYS[1])
local value = redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
if existed == 0 and tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return value`,
  1,
);

/**
 * Idempotent append: HSETNX id→json in KEYS[1]; only when new, index it in the sorted set
 * KEYS[2] with score = time and member = 16-digit insertion number + ':' + id (so equal
 * times keep insertion order), the number coming from INCR KEYS[3]. Returns 1 or 0.
 */
export const appendScript = new LuaScript(
  'append',
  `if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[3]) == 0 then return 0 end
local seq = redis.call('INCR', KEYS[3])
redis.call('ZADD', KEYS[2], ARGV[2], string.format('%016d', seq) .. ':' .. ARGV[1])
return 1`,
  3,
);

/** Records of KEYS[2] with score in [ARGV[1], ARGV[2]] (LIMIT ARGV[3], -1 = all) as flat {id, time, json} triples. */
export const rangeScript = new LuaScript(
  'range',
  `local members
if tonumber(ARGV[3]) >= 0 then
  members = redis.call('ZRANGEBYSCORE', KEYS[2], ARGV[1], ARGV[2], 'WITHSCORES', 'LIMIT', 0, ARGV[3])
else
  members = redis.call('ZRANGEBYSCORE', KEYS[2], ARGV[1], ARGV[2], 'WITHSCORES')
end
local out = {}
for i = 1, #members, 2 do
  local id = string.sub(members[i], 18)
  out[#out + 1] = id
  out[#out + 1] = members[i + 1]
  out[#out + 1] = redis.call('HGET', KEYS[1], id)
end
return out`,
  2,
);

/** Delete the lease KEYS[1] only when ARGV[1] (the holder's token) still holds it. */
export const releaseLeaseScript = new LuaScript(
  'releaseLease',
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`,
  1,
);

/**
 * Idempotent usage record with its spend counters and daily aggregates, all or nothing. KEYS:
 * global hash, global time index, global insertion counter, user hash, user time index, user
 * spend hash, the `counted from` key, the record's day hash, the `daily from` key, then the spend hash of each shared
 * cap scope the record names. ARGV: id, time, json, cost hi,
 * cost lo, n = number of counter periods, the n periods, then (field, amount) pairs for the
 * day hash. Only when the id is new in the global hash: index it, copy it to the user's
 * stream, HINCRBY `<period>:hi` / `<period>:lo` of each period (in the user's and each scope's spend hash) and each
 * day-hash field, and
 * (the first time) remember its insertion number as the first one with counters and with daily
 * aggregates (for the one-time backfills of records older versions wrote). Returns 1
 * (added) or 0 (already recorded: no change). A key of the wrong type is found before anything is written (Redis does
 * not undo a script's earlier writes when a later command fails): WRONGTYPE, and the write can be retried whole.
 */
export const recordUsageScript = new LuaScript(
  'recordUsage',
  `${checkKeyTypes(['hash', 'zset', 'string', 'hash', 'zset', 'hash', 'string', 'hash', 'string'])}for i = 10, #KEYS do
  local found = redis.call('TYPE', KEYS[i]).ok
  if found ~= 'none' and found ~= 'hash' then
    return redis.error_reply('WRONGTYPE ' .. KEYS[i] .. ' holds a ' .. found .. ', not a hash; nothing was written')
  end
end
${STORE_RECORD_ONCE}if redis.call('HSETNX', KEYS[4], ARGV[1], ARGV[3]) == 1 then redis.call('ZADD', KEYS[5], ARGV[2], member) end
local periods = tonumber(ARGV[6])
for i = 7, 6 + periods do
  redis.call('HINCRBY', KEYS[6], ARGV[i] .. ':hi', ARGV[4])
  redis.call('HINCRBY', KEYS[6], ARGV[i] .. ':lo', ARGV[5])
  for k = 10, #KEYS do
    redis.call('HINCRBY', KEYS[k], ARGV[i] .. ':hi', ARGV[4])
    redis.call('HINCRBY', KEYS[k], ARGV[i] .. ':lo', ARGV[5])
  end
end
for i = 7 + periods, #ARGV, 2 do redis.call('HINCRBY', KEYS[8], ARGV[i], ARGV[i + 1]) end
redis.call('SETNX', KEYS[7], seq)
redis.call('SETNX', KEYS[9], seq)
return 1`,
  'variadic',
);

/** The first insertion number with counters (KEYS[1]), fixing it at KEYS[2] + 1 when no record has counters yet. */
export const countedFromScript = new LuaScript(
  'countedFrom',
  `local from = redis.call('GET', KEYS[1])
if from then return tonumber(from) end
local next = (tonumber(redis.call('GET', KEYS[2]) or '0') or 0) + 1
redis.call('SET', KEYS[1], next)
return next`,
  2,
);

/**
 * Apply the counters of records written before counters existed, once: when the marker
 * KEYS[1] is absent, HINCRBY each (spend hash, field, amount) triple of ARGV and set the
 * marker, all in one step. Returns 1 (applied) or 0 (already done).
 */
export const applyBackfillScript = new LuaScript(
  'applyBackfill',
  `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
for i = 1, #ARGV, 3 do redis.call('HINCRBY', ARGV[i], ARGV[i + 1], ARGV[i + 2]) end
redis.call('SET', KEYS[1], '1')
return 1`,
  1,
);

/**
 * One page of a stream for bounded scans: KEYS hash, time index; ARGV direction ('asc' or
 * 'desc'), min, max (ZRANGEBYSCORE syntax), offset, count. Returns flat {score, member, json} triples.
 */
export const pageScript = new LuaScript(
  'page',
  `local members
if ARGV[1] == 'asc' then
  members = redis.call('ZRANGEBYSCORE', KEYS[2], ARGV[2], ARGV[3], 'WITHSCORES', 'LIMIT', ARGV[4], ARGV[5])
else
  members = redis.call('ZREVRANGEBYSCORE', KEYS[2], ARGV[3], ARGV[2], 'WITHSCORES', 'LIMIT', ARGV[4], ARGV[5])
end
local out = {}
for i = 1, #members, 2 do
  out[#out + 1] = members[i + 1]
  out[#out + 1] = members[i]
  out[#out + 1] = redis.call('HGET', KEYS[1], string.sub(members[i], 18))
end
return out`,
  2,
);

/**
 * Capped-list push: ARGV[1] moves to (or enters at) the head of list KEYS[1], which keeps its first ARGV[2] items;
 * a TTL of ARGV[3] ms (0 = none) is set on the list. Returns the items that fell off its end.
 */
export const listPushScript = new LuaScript(
  'listPush',
  `redis.call('LREM', KEYS[1], 0, ARGV[1])
redis.call('LPUSH', KEYS[1], ARGV[1])
local max = tonumber(ARGV[2])
local evicted = redis.call('LRANGE', KEYS[1], max, -1)
if #evicted > 0 then redis.call('LTRIM', KEYS[1], 0, max - 1) end
if tonumber(ARGV[3]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) else redis.call('PERSIST', KEYS[1]) end
return evicted`,
  1,
);

/**
 * Several capped-list pushes as one atomic step: for list KEYS[i], ARGV[3i-2] is the item, ARGV[3i-1] the size it
 * keeps, ARGV[3i] its TTL in ms (0 = none), as `listPushScript`. Returns, per push, the items that fell off its end.
 */
export const listPushManyScript = new LuaScript(
  'listPushMany',
  `local out = {}
for index, key in ipairs(KEYS) do
  local item = ARGV[index * 3 - 2]
  local max = tonumber(ARGV[index * 3 - 1])
  local ttl = tonumber(ARGV[index * 3])
  redis.call('LREM', key, 0, item)
  redis.call('LPUSH', key, item)
  local evicted = redis.call('LRANGE', key, max, -1)
  if #evicted > 0 then redis.call('LTRIM', key, 0, max - 1) end
  if ttl > 0 then redis.call('PEXPIRE', key, ttl) else redis.call('PERSIST', key) end
  out[index] = evicted
end
return out`,
  'variadic',
);

/**
 * Sliding-window admission (StateStore.windowAdmit, the rule of sliding-window.ts) on the sorted set KEYS[1] of
 * admission times (score = time, member unique): ARGV now, window ms, limit, the member for this admission. Drops the
 * times at or before now - window and all but the newest `limit`; admits (ZADD, TTL window) when fewer remain.
 * Returns {1, count} or {0, the time the oldest remaining one leaves the window}.
 */
export const windowAdmitScript = new LuaScript(
  'windowAdmit',
  `${checkKeyTypes(['zset'])}local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count > limit then
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, count - limit - 1)
  count = limit
end
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, count + 1}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, tostring(tonumber(oldest[2]) + window)}`,
  1,
);
