import { formatDecimal } from '../../domain/pricing/decimal.js';
import { joinCost } from '../../domain/usage/cost-parts.js';
import {
  nanoToDecimal,
  REQUEST_HOLD_PREFIX,
  toNano,
  type HoldOutcome,
  type HoldRequest,
  type ReleaseOptions,
  type SpendHolds,
} from '../../domain/usage/spend-reservations.js';
import type { RedisKeys } from './redis-keys.js';
import { LuaScript } from './redis-scripts.js';
import type { RedisCall } from './redis-stream-store.js';

/** How long the hold keys outlive their newest hold (a replica's clock may run a little behind another's). */
const KEY_SLACK_MS = 60_000;

/**
 * Check and hold in one step. KEYS: the user's spend hash (`<period>:hi` / `:lo`, written by the record
 * script), the user's hold hash (`sum`, `h:<id>` → nano-dollars, and for a hold made in a chat `c:<id>` → chat id,
 * `t:<id>` → turn, `m:<id>` → model), the user's hold expiry index (zset id → expiresAt). ARGV: now, id, amount
 * (nano), expiresAt, key TTL ms, n caps, chat id ('' = none), turn, model ('' = none), then n × (period, limit in
 * nano). Drops expired holds; with a chat and no hold ended by a turn pending (`e:<id>`), settles to 0 the oldest hold
 * of that chat made for another turn and marks it `e:<id>` (see HoldChat; it keeps its id until its reply is recorded
 * or it expires). Then a cap has room when
 * spent + held < limit and spent + held + amount <= limit (spent = hi + lo / 1e9 nano-dollars; doubles are exact to
 * the nano-dollar below $9M); when all have room, the hold is added (to a hold of the same id, if any: a reused id
 * must not free room). Returns {blocked cap (1-based, 0 = admitted), held nano after the call, then hi, lo of each
 * cap}.
 */
export const reserveHoldScript = new LuaScript(
  'reserveHold',
  `local function minus(value)
  local amount = tonumber(value)
  if amount == 0 then return '0' end
  return string.format('%.0f', -amount)
end
local now = tonumber(ARGV[1])
local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
for _, id in ipairs(expired) do
  local nano = redis.call('HGET', KEYS[2], 'h:' .. id)
  if nano then
    redis.call('HINCRBY', KEYS[2], 'sum', minus(nano))
    redis.call('HDEL', KEYS[2], 'h:' .. id, 'c:' .. id, 't:' .. id, 'm:' .. id, 'e:' .. id)
  end
end
if #expired > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now) end
local chat, turn = ARGV[7], ARGV[8]
if chat ~= '' then
  local ids = redis.call('ZRANGE', KEYS[3], 0, -1)
  local pending = false
  for _, id in ipairs(ids) do
    if redis.call('HEXISTS', KEYS[2], 'e:' .. id) == 1 then pending = true break end
  end
  if not pending then
    for _, id in ipairs(ids) do
      if id ~= ARGV[2] and redis.call('HGET', KEYS[2], 'c:' .. id) == chat then
        local nano = redis.call('HGET', KEYS[2], 'h:' .. id)
        if nano and tonumber(nano) > 0 and redis.call('HGET', KEYS[2], 't:' .. id) ~= turn then
          redis.call('HINCRBY', KEYS[2], 'sum', minus(nano))
          redis.call('HSET', KEYS[2], 'h:' .. id, '0', 'e:' .. id, '1')
          break
        end
      end
    end
  end
end
local field = 'h:' .. ARGV[2]
local held = tonumber(redis.call('HGET', KEYS[2], 'sum') or '0')
local amount = tonumber(ARGV[3])
local blocked = 0
local out = {}
for i = 1, tonumber(ARGV[6]) do
  local period = ARGV[8 + 2 * i]
  local limit = tonumber(ARGV[9 + 2 * i])
  local hi = redis.call('HGET', KEYS[1], period .. ':hi') or '0'
  local lo = redis.call('HGET', KEYS[1], period .. ':lo') or '0'
  out[#out + 1] = hi
  out[#out + 1] = lo
  local spent = tonumber(hi) + tonumber(lo) / 1e9
  if blocked == 0 and (spent + held >= limit or spent + held + amount > limit) then blocked = i end
end
if blocked == 0 then
  redis.call('HINCRBY', KEYS[2], field, ARGV[3])
  redis.call('HINCRBY', KEYS[2], 'sum', ARGV[3])
  redis.call('HDEL', KEYS[2], 'e:' .. ARGV[2])
  if chat ~= '' then
    redis.call('HSET', KEYS[2], 'c:' .. ARGV[2], chat, 't:' .. ARGV[2], turn)
    if ARGV[9] ~= '' then redis.call('HSET', KEYS[2], 'm:' .. ARGV[2], ARGV[9])
    else redis.call('HDEL', KEYS[2], 'm:' .. ARGV[2]) end
  end
  local expiry = redis.call('ZSCORE', KEYS[3], ARGV[2])
  if not expiry or tonumber(expiry) < tonumber(ARGV[4]) then redis.call('ZADD', KEYS[3], ARGV[4], ARGV[2]) end
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
  redis.call('PEXPIRE', KEYS[3], ARGV[5])
  held = held + amount
end
return {blocked, string.format('%.0f', held), unpack(out)}`,
  3,
);

/**
 * Drop holds by id. KEYS: hold hash, expiry index; ARGV: a request-id prefix ('' = none), a chat id ('' = none),
 * the reply's model ('' = any), then the ids. When none of the ids is held: with a chat, of the holds of that chat made
 * for that model (or without a model), the one ended by a turn (`e:<id>`) goes, else the oldest holding more than 0;
 * else, with the prefix, the oldest hold whose id starts with it. Returns how many were dropped.
 */
export const releaseHoldsScript = new LuaScript(
  'releaseHolds',
  `local function minus(value)
  local amount = tonumber(value)
  if amount == 0 then return '0' end
  return string.format('%.0f', -amount)
end
local function drop(id)
  local nano = redis.call('HGET', KEYS[1], 'h:' .. id)
  if not nano then return 0 end
  redis.call('HINCRBY', KEYS[1], 'sum', minus(nano))
  redis.call('HDEL', KEYS[1], 'h:' .. id, 'c:' .. id, 't:' .. id, 'm:' .. id, 'e:' .. id)
  redis.call('ZREM', KEYS[2], id)
  return 1
end
local dropped = 0
for i = 4, #ARGV do dropped = dropped + drop(ARGV[i]) end
if dropped == 0 and ARGV[2] ~= '' then
  local oldest = false
  for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
    if redis.call('HGET', KEYS[1], 'c:' .. id) == ARGV[2] then
      local model = redis.call('HGET', KEYS[1], 'm:' .. id)
      if ARGV[3] == '' or not model or model == ARGV[3] then
        if redis.call('HEXISTS', KEYS[1], 'e:' .. id) == 1 then return drop(id) end
        if not oldest and tonumber(redis.call('HGET', KEYS[1], 'h:' .. id) or '0') > 0 then oldest = id end
      end
    end
  end
  if oldest then return drop(oldest) end
end
if dropped == 0 and ARGV[1] ~= '' then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
    if string.sub(id, 1, #ARGV[1]) == ARGV[1] then return drop(id) end
  end
end
return dropped`,
  2,
);

/**
 * Spend holds on Redis: one script checks the user's spend counters and live holds and adds the hold,
 * so replicas sharing the Redis never both admit past a cap. The hold keys expire on their own a minute
 * after the newest hold's timeout (nothing is left behind by users who stop).
 */
export class RedisSpendHolds implements SpendHolds {
  constructor(
    private readonly call: RedisCall,
    private readonly layout: RedisKeys,
  ) {}

  async reserve(request: HoldRequest): Promise<HoldOutcome> {
    const amountNano = toNano(request.amount);
    const keyTtl = Math.max(1, request.expiresAt - request.now) + KEY_SLACK_MS;
    const args: (string | number)[] = [
      request.now,
      request.id,
      amountNano.toString(),
      request.expiresAt,
      keyTtl,
      request.caps.length,
      request.chat?.id ?? '',
      request.chat?.turn ?? '',
      request.chat?.model ?? '',
    ];
    for (const cap of request.caps) args.push(cap.period, toNano(cap.limit).toString());
    const reply = (await this.call('reserveHold', (client) =>
      reserveHoldScript.run(
        client,
        [this.layout.spend(request.userId), this.layout.holds(request.userId), this.layout.holdExpiry(request.userId)],
        args,
      ),
    )) as [number, string, ...string[]];
    const [blocked, heldNano, ...counters] = reply;
    const spent = request.caps.map((_, index) =>
      formatDecimal(joinCost(counters[2 * index] ?? '0', counters[2 * index + 1] ?? '0')),
    );
    return {
      admitted: blocked === 0,
      ...(blocked === 0 ? {} : { blockedBy: blocked - 1 }),
      spent,
      held: formatDecimal(nanoToDecimal(BigInt(heldNano))),
    };
  }

  async release(userId: string, ids: readonly string[], options: ReleaseOptions = {}): Promise<number> {
    const prefix = options.orOldestRequestHold ? REQUEST_HOLD_PREFIX : '';
    const dropped = await this.call('releaseHolds', (client) =>
      releaseHoldsScript.run(
        client,
        [this.layout.holds(userId), this.layout.holdExpiry(userId)],
        [prefix, options.orChat ?? '', options.model ?? '', ...ids],
      ),
    );
    return Number(dropped);
  }
}
