import { checkKeyTypes, LuaScript, STORE_RECORD_ONCE } from './redis-scripts.js';

/**
 * Cluster: a user's copy of a usage record with its spend counters, in the user's slot. KEYS: user hash, user time
 * index, user insertion counter, user spend hash. ARGV: id, time, json, cost hi, cost lo, then the counter periods.
 * Only when the id is new in the user's hash: index it (its own insertion number orders equal times) and HINCRBY
 * `<period>:hi` / `<period>:lo` of each period. Returns 1 (added) or 0 (already there: no change). Key types are
 * checked first, so a WRONGTYPE leaves nothing half written.
 */
export const recordUserCopyScript = new LuaScript(
  'recordUserCopy',
  `${checkKeyTypes(['hash', 'zset', 'string', 'hash'])}${STORE_RECORD_ONCE}for i = 6, #ARGV do
  redis.call('HINCRBY', KEYS[4], ARGV[i] .. ':hi', ARGV[4])
  redis.call('HINCRBY', KEYS[4], ARGV[i] .. ':lo', ARGV[5])
end
return 1`,
  4,
);

/**
 * Cluster: the global ledger's record with its daily aggregates and the spend counters of the shared cap scopes it
 * names, in the ledger's slot. KEYS: global hash, global time index, global insertion counter, the record's day hash,
 * then each scope's spend hash. ARGV: id, time, json, cost hi, cost lo, n = number of counter periods, the n periods,
 * then (field, amount) pairs of the day hash. Only when the id is new: index it, HINCRBY each field and each scope's
 * `<period>:hi` / `<period>:lo`. Returns 1 (added) or 0 (already there).
 */
export const recordLedgerScript = new LuaScript(
  'recordLedger',
  `${checkKeyTypes(['hash', 'zset', 'string', 'hash'])}for i = 5, #KEYS do
  local found = redis.call('TYPE', KEYS[i]).ok
  if found ~= 'none' and found ~= 'hash' then
    return redis.error_reply('WRONGTYPE ' .. KEYS[i] .. ' holds a ' .. found .. ', not a hash; nothing was written')
  end
end
${STORE_RECORD_ONCE}local periods = tonumber(ARGV[6])
for k = 5, #KEYS do
  for i = 7, 6 + periods do
    redis.call('HINCRBY', KEYS[k], ARGV[i] .. ':hi', ARGV[4])
    redis.call('HINCRBY', KEYS[k], ARGV[i] .. ':lo', ARGV[5])
  end
end
for i = 7 + periods, #ARGV, 2 do redis.call('HINCRBY', KEYS[4], ARGV[i], ARGV[i + 1]) end
return 1`,
  'variadic',
);
