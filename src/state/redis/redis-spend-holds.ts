import { formatDecimal } from '../../domain/pricing/decimal.js';
import { joinCost } from '../../domain/usage/cost-parts.js';
import {
  nanoToDecimal,
  REQUEST_HOLD_PREFIX,
  scopeMember,
  splitCaps,
  toNano,
  type HoldOutcome,
  type HoldRequest,
  type ReleaseOptions,
  type SpendHolds,
} from '../../domain/usage/spend-reservations.js';
import type { RedisKeys } from './redis-keys.js';
import { LuaScript } from './redis-scripts.js';
import type { RedisCall } from './redis-stream-store.js';

/** Lua: `minus(nano)`, the negated amount as an integer string for HINCRBY (the scripts below subtract with it). */
const MINUS = `local function minus(value)
  local amount = tonumber(value)
  if amount == 0 then return '0' end
  return string.format('%.0f', -amount)
end
`;

/** How long the hold keys outlive their newest hold (a replica's clock may run a little behind another's). */
const KEY_SLACK_MS = 60_000;

/**
 * Check and hold in one step. KEYS: the user's spend hash (`<period>:hi` / `:lo`, written by the record
 * script), the user's hold hash (`sum`, `h:<id>` → nano-dollars, and for a hold made in a chat `c:<id>` → chat id,
 * `t:<id>` → turn, `m:<id>` → model, `s:<id>` → the JSON list of the shared scopes it also holds in), the user's hold
 * expiry index (zset id → expiresAt). ARGV: now, id, amount (nano), expiresAt, key TTL ms, n caps, chat id ('' =
 * none), turn, model ('' = none), the scopes as a JSON list ('' = none), then n × (period, limit in nano). Drops expired holds; with a chat and no hold ended by a turn pending (`e:<id>`), settles to 0 the oldest hold
 * of that chat made for another turn and marks it `e:<id>` (see HoldChat; it keeps its id until its reply is recorded
 * or it expires). Then a cap has room when
 * spent + held < limit and spent + held + amount <= limit (spent = hi + lo / 1e9 nano-dollars; doubles are exact to
 * the nano-dollar below $9M); when all have room, the hold is added (to a hold of the same id, if any: a reused id
 * must not free room). A hold a turn ends keeps its parts in shared scopes (released with it). Returns {blocked cap
 * (1-based, 0 = admitted), held nano after the call, 1 when the id was held before the call, then hi, lo of each cap}.
 */
export const reserveHoldScript = new LuaScript(
  'reserveHold',
  `${MINUS}local now = tonumber(ARGV[1])
local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
for _, id in ipairs(expired) do
  local nano = redis.call('HGET', KEYS[2], 'h:' .. id)
  if nano then
    redis.call('HINCRBY', KEYS[2], 'sum', minus(nano))
    redis.call('HDEL', KEYS[2], 'h:' .. id, 'c:' .. id, 't:' .. id, 'm:' .. id, 'e:' .. id, 's:' .. id)
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
  local period = ARGV[9 + 2 * i]
  local limit = tonumber(ARGV[10 + 2 * i])
  local hi = redis.call('HGET', KEYS[1], period .. ':hi') or '0'
  local lo = redis.call('HGET', KEYS[1], period .. ':lo') or '0'
  out[#out + 1] = hi
  out[#out + 1] = lo
  local spent = tonumber(hi) + tonumber(lo) / 1e9
  if blocked == 0 and (spent + held >= limit or spent + held + amount > limit) then blocked = i end
end
local existed = redis.call('HEXISTS', KEYS[2], field)
if blocked == 0 then
  if ARGV[10] ~= '' then
    local scopes = cjson.decode(ARGV[10])
    local before = redis.call('HGET', KEYS[2], 's:' .. ARGV[2])
    if before then
      local seen = {}
      for _, scope in ipairs(scopes) do seen[scope] = true end
      for _, scope in ipairs(cjson.decode(before)) do
        if not seen[scope] then scopes[#scopes + 1] = scope end
      end
    end
    redis.call('HSET', KEYS[2], 's:' .. ARGV[2], cjson.encode(scopes))
  end
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
return {blocked, string.format('%.0f', held), existed, unpack(out)}`,
  3,
);

/**
 * Drop holds by id. KEYS: hold hash, expiry index; ARGV: a request-id prefix ('' = none), a chat id ('' = none),
 * the reply's model ('' = any), then the ids. When none of the ids is held: with a chat, of the holds of that chat made
 * for that model (or without a model), the one ended by a turn (`e:<id>`) goes, else the oldest holding more than 0;
 * else, with the prefix, the oldest hold whose id starts with it. Returns {how many were dropped, then (id, its scopes
 * as JSON or '') of each}.
 */
export const releaseHoldsScript = new LuaScript(
  'releaseHolds',
  `${MINUS}local out = {0}
local function drop(id)
  local nano = redis.call('HGET', KEYS[1], 'h:' .. id)
  if not nano then return out end
  local scopes = redis.call('HGET', KEYS[1], 's:' .. id) or ''
  redis.call('HINCRBY', KEYS[1], 'sum', minus(nano))
  redis.call('HDEL', KEYS[1], 'h:' .. id, 'c:' .. id, 't:' .. id, 'm:' .. id, 'e:' .. id, 's:' .. id)
  redis.call('ZREM', KEYS[2], id)
  out[1] = out[1] + 1
  out[#out + 1] = id
  out[#out + 1] = scopes
  return out
end
for i = 4, #ARGV do drop(ARGV[i]) end
local dropped = out[1]
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
return out`,
  2,
);

/**
 * Check and hold in the shared scopes of a request (see spend-scopes.ts), in one step: on Cluster their keys share the
 * global ledger's slot. KEYS: per scope, its spend hash (written by the record script), its hold hash (`sum` and
 * member → nano-dollars) and its expiry index (zset member → expiresAt). ARGV: now, member (user and hold id), amount
 * (nano), expiresAt, key TTL ms, n caps, then n × (scope number, 1-based, period, limit in nano). Drops each scope's
 * expired parts; a cap has room when spent + held < limit and spent + held + amount <= limit (held = all the scope's
 * members' live holds); when all have room, adds the amount under the member in each scope (keeping the later expiry).
 * Returns {blocked cap (1-based, 0 = admitted), then hi, lo, held nano before the call of each cap}.
 */
export const reserveScopesScript = new LuaScript(
  'reserveScopes',
  `${MINUS}local now = tonumber(ARGV[1])
local scopes = #KEYS / 3
for s = 1, scopes do
  local holds, expiry = KEYS[3 * s - 1], KEYS[3 * s]
  local expired = redis.call('ZRANGEBYSCORE', expiry, '-inf', now)
  for _, member in ipairs(expired) do
    local nano = redis.call('HGET', holds, member)
    if nano then
      redis.call('HINCRBY', holds, 'sum', minus(nano))
      redis.call('HDEL', holds, member)
    end
  end
  if #expired > 0 then redis.call('ZREMRANGEBYSCORE', expiry, '-inf', now) end
end
local amount = tonumber(ARGV[3])
local blocked = 0
local out = {}
for i = 1, tonumber(ARGV[6]) do
  local s = tonumber(ARGV[4 + 3 * i])
  local period = ARGV[5 + 3 * i]
  local limit = tonumber(ARGV[6 + 3 * i])
  local hi = redis.call('HGET', KEYS[3 * s - 2], period .. ':hi') or '0'
  local lo = redis.call('HGET', KEYS[3 * s - 2], period .. ':lo') or '0'
  local held = tonumber(redis.call('HGET', KEYS[3 * s - 1], 'sum') or '0')
  out[#out + 1] = hi
  out[#out + 1] = lo
  out[#out + 1] = string.format('%.0f', held)
  local spent = tonumber(hi) + tonumber(lo) / 1e9
  if blocked == 0 and (spent + held >= limit or spent + held + amount > limit) then blocked = i end
end
if blocked == 0 then
  local ttl = tonumber(ARGV[5])
  for s = 1, scopes do
    local holds, expiry = KEYS[3 * s - 1], KEYS[3 * s]
    redis.call('HINCRBY', holds, ARGV[2], ARGV[3])
    redis.call('HINCRBY', holds, 'sum', ARGV[3])
    local at = redis.call('ZSCORE', expiry, ARGV[2])
    if not at or tonumber(at) < tonumber(ARGV[4]) then redis.call('ZADD', expiry, ARGV[4], ARGV[2]) end
    if redis.call('PTTL', holds) < ttl then redis.call('PEXPIRE', holds, ttl) end
    if redis.call('PTTL', expiry) < ttl then redis.call('PEXPIRE', expiry, ttl) end
  end
end
return {blocked, unpack(out)}`,
  'variadic',
);

/** Drop a member's part in scopes. KEYS: per scope, its hold hash and expiry index; ARGV: the member. Returns how many. */
export const releaseScopesScript = new LuaScript(
  'releaseScopes',
  `local dropped = 0
for s = 1, #KEYS / 2 do
  local holds, expiry = KEYS[2 * s - 1], KEYS[2 * s]
  local nano = redis.call('HGET', holds, ARGV[1])
  if nano then
    local amount = tonumber(nano)
    if amount ~= 0 then redis.call('HINCRBY', holds, 'sum', string.format('%.0f', -amount)) end
    redis.call('HDEL', holds, ARGV[1])
    dropped = dropped + 1
  end
  redis.call('ZREM', expiry, ARGV[1])
end
return dropped`,
  'variadic',
);

/**
 * Give back what a reservation added to a user's hold when a shared scope then refused it. KEYS: hold hash, expiry
 * index; ARGV: id, amount (nano), 1 when the id was held before the reservation (only the amount goes) else 0 (the
 * hold goes).
 */
export const giveBackHoldScript = new LuaScript(
  'giveBackHold',
  `local nano = redis.call('HGET', KEYS[1], 'h:' .. ARGV[1])
if not nano then return 0 end
local amount = tonumber(ARGV[2])
if ARGV[3] == '1' then
  if amount ~= 0 then
    redis.call('HINCRBY', KEYS[1], 'h:' .. ARGV[1], string.format('%.0f', -amount))
    redis.call('HINCRBY', KEYS[1], 'sum', string.format('%.0f', -amount))
  end
  return 1
end
local held = tonumber(nano)
if held ~= 0 then redis.call('HINCRBY', KEYS[1], 'sum', string.format('%.0f', -held)) end
local id = ARGV[1]
redis.call('HDEL', KEYS[1], 'h:' .. id, 'c:' .. id, 't:' .. id, 'm:' .. id, 'e:' .. id, 's:' .. id)
redis.call('ZREM', KEYS[2], id)
return 1`,
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
    const { own, scoped } = splitCaps(request.caps);
    const scopes = [...new Set(scoped.map(({ cap }) => cap.scope))];
    const args: (string | number)[] = [
      request.now,
      request.id,
      amountNano.toString(),
      request.expiresAt,
      keyTtl,
      own.length,
      request.chat?.id ?? '',
      request.chat?.turn ?? '',
      request.chat?.model ?? '',
      scopes.length > 0 ? JSON.stringify(scopes) : '',
    ];
    for (const { cap } of own) args.push(cap.period, toNano(cap.limit).toString());
    const reply = (await this.call('reserveHold', (client) =>
      reserveHoldScript.run(client, this.userKeys(request.userId), args),
    )) as [number, string, number, ...string[]];
    const [blocked, heldNano, existed, ...counters] = reply;
    const spent: string[] = request.caps.map(() => '0');
    for (const [at, { index }] of own.entries())
      spent[index] = formatDecimal(joinCost(counters[2 * at] ?? '0', counters[2 * at + 1] ?? '0'));
    const held = nanoToDecimal(BigInt(heldNano));
    if (scoped.length === 0) {
      return {
        admitted: blocked === 0,
        ...(blocked === 0 ? {} : { blockedBy: own[blocked - 1]!.index }),
        spent,
        held: formatDecimal(held),
      };
    }
    const scopeHeld: string[] = request.caps.map(() => formatDecimal(held));
    if (blocked !== 0) {
      // The user's own cap refused: the scopes are read (for the messages), nothing is held there.
      const read = await this.reserveScopes(request, scopes, scoped, 0n, keyTtl, false);
      for (const [at, { index }] of scoped.entries()) {
        spent[index] = read.spent[at]!;
        scopeHeld[index] = read.held[at]!;
      }
      return { admitted: false, blockedBy: own[blocked - 1]!.index, spent, held: formatDecimal(held), scopeHeld };
    }
    let outcome: Awaited<ReturnType<RedisSpendHolds['reserveScopes']>>;
    try {
      outcome = await this.reserveScopes(request, scopes, scoped, amountNano, keyTtl, true);
    } catch (error) {
      await this.giveBack(request.userId, request.id, amountNano, existed === 1).catch(() => undefined);
      throw error;
    }
    for (const [at, { index }] of scoped.entries()) {
      spent[index] = outcome.spent[at]!;
      scopeHeld[index] = outcome.held[at]!;
    }
    if (outcome.blocked !== 0) {
      await this.giveBack(request.userId, request.id, amountNano, existed === 1);
      const userHeld = held - nanoToDecimal(amountNano);
      for (const { index } of own) scopeHeld[index] = formatDecimal(userHeld);
      return {
        admitted: false,
        blockedBy: scoped[outcome.blocked - 1]!.index,
        spent,
        held: formatDecimal(userHeld),
        scopeHeld,
      };
    }
    return { admitted: true, spent, held: formatDecimal(held), scopeHeld };
  }

  async release(userId: string, ids: readonly string[], options: ReleaseOptions = {}): Promise<number> {
    const prefix = options.orOldestRequestHold ? REQUEST_HOLD_PREFIX : '';
    const reply = (await this.call('releaseHolds', (client) =>
      releaseHoldsScript.run(
        client,
        [this.layout.holds(userId), this.layout.holdExpiry(userId)],
        [prefix, options.orChat ?? '', options.model ?? '', ...ids],
      ),
    )) as [number, ...string[]];
    const [dropped, ...released] = reply;
    for (let at = 0; at + 1 < released.length; at += 2)
      if (released[at + 1]) await this.releaseScopes(userId, released[at]!, released[at + 1]!);
    return Number(dropped);
  }

  private userKeys(userId: string): string[] {
    return [this.layout.spend(userId), this.layout.holds(userId), this.layout.holdExpiry(userId)];
  }

  /**
   * Check the shared scopes' caps and (with `hold`, when all have room) hold `amount` in each; `amount` 0 without
   * `hold` only reads. Spent and held are aligned with `scoped`; held is after the call.
   */
  private async reserveScopes(
    request: HoldRequest,
    scopes: readonly string[],
    scoped: ReturnType<typeof splitCaps>['scoped'],
    amountNano: bigint,
    keyTtl: number,
    hold: boolean,
  ): Promise<{ blocked: number; spent: string[]; held: string[] }> {
    const keys = scopes.flatMap((scope) => [
      this.layout.scopeSpend(scope),
      this.layout.scopeHolds(scope),
      this.layout.scopeHoldExpiry(scope),
    ]);
    const args: (string | number)[] = [
      request.now,
      scopeMember(request.userId, request.id),
      amountNano.toString(),
      request.expiresAt,
      keyTtl,
      scoped.length,
    ];
    for (const { cap } of scoped)
      args.push(scopes.indexOf(cap.scope) + 1, cap.period, hold ? toNano(cap.limit).toString() : '-1');
    const reply = (await this.call('reserveScopes', (client) => reserveScopesScript.run(client, keys, args))) as [
      number,
      ...string[],
    ];
    const [blocked, ...values] = reply;
    const admitted = hold && blocked === 0;
    return {
      blocked: hold ? blocked : 0,
      spent: scoped.map((_, at) => formatDecimal(joinCost(values[3 * at] ?? '0', values[3 * at + 1] ?? '0'))),
      held: scoped.map((_, at) => {
        const before = BigInt(values[3 * at + 2] ?? '0');
        return formatDecimal(nanoToDecimal(admitted ? before + amountNano : before));
      }),
    };
  }

  /** Drop a user's hold's part in each of its scopes (`scopes`: their JSON list). */
  private async releaseScopes(userId: string, id: string, scopes: string): Promise<void> {
    let list: unknown;
    try {
      list = JSON.parse(scopes);
    } catch {
      return;
    }
    if (!Array.isArray(list) || list.length === 0) return;
    const keys = list
      .filter((scope): scope is string => typeof scope === 'string')
      .flatMap((scope) => [this.layout.scopeHolds(scope), this.layout.scopeHoldExpiry(scope)]);
    await this.call('releaseScopes', (client) => releaseScopesScript.run(client, keys, [scopeMember(userId, id)]));
  }

  /** Give back what a reservation added to the user's hold `id` (see giveBackHoldScript). */
  private async giveBack(userId: string, id: string, amountNano: bigint, existed: boolean): Promise<void> {
    await this.call('giveBackHold', (client) =>
      giveBackHoldScript.run(
        client,
        [this.layout.holds(userId), this.layout.holdExpiry(userId)],
        [id, amountNano.toString(), existed ? '1' : '0'],
      ),
    );
  }
}
