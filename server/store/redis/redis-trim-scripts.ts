/**
 * The Redis engine's trim script (docs/storage.md#trimming). A session's base, the first seq its stream holds, is
 * the value of field '' of its idempotency hash ('' or absent = 0; redis-keys.ts): a key of its own would be
 * missing from most sessions, and on a Cluster a script naming a missing key gets TRYAGAIN for as long as the
 * session's slot is being moved.
 */

/**
 * Trim a session's stream below ARGV[2] in its epoch ARGV[1]: `XTRIM MINID <beforeSeq>-0` (entry ids are
 * `<seq>-1`) and the base set to beforeSeq, in one step. KEYS: 1 log, 2 epoch, 3 idempotency hash.
 * Returns {status, epoch or '', base, length, removed}: 'trimmed' (also when beforeSeq ≤ base: nothing to do),
 * 'conflict' (another epoch, or none) or 'beyond-head' (beforeSeq > length); only 'trimmed' with removed > 0 writes.
 * `allow-oom`: a trim frees memory, so a full Redis must still run it.
 */
export const TRIM_SCRIPT = `#!lua flags=allow-oom
local base = tonumber(redis.call('HGET', KEYS[3], '')) or 0
local length = base + redis.call('XLEN', KEYS[1])
local epoch = redis.call('GET', KEYS[2]) or ''
if epoch == '' or epoch ~= ARGV[1] then return {'conflict', epoch, base, length, 0} end
local before = tonumber(ARGV[2])
if before > length then return {'beyond-head', epoch, base, length, 0} end
if before <= base then return {'trimmed', epoch, base, length, 0} end
local removed = redis.call('XTRIM', KEYS[1], 'MINID', string.format('%d-0', before))
redis.call('HSET', KEYS[3], '', string.format('%d', before))
return {'trimmed', epoch, before, length, removed}
`;

/**
 * One step of the idempotency window (idempotency-prune.ts): `HSCAN` the idempotency hash from cursor ARGV[1],
 * COUNT ARGV[2], and delete the keys whose value `first:last:time` has last < the base (every event of the append
 * trimmed) and time < ARGV[3]; never field '' (the base). KEYS: 1 idempotency hash (one key: Cluster-safe).
 * Returns {next cursor, removed, the latest time among the trimmed keys kept for being too recent (0: none)}. A missing hash scans as empty (cursor 0). `allow-oom`: it frees memory.
 */
export const PRUNE_KEYS_SCRIPT = `#!lua flags=allow-oom
local base = tonumber(redis.call('HGET', KEYS[1], '')) or 0
local scan = redis.call('HSCAN', KEYS[1], ARGV[1], 'COUNT', ARGV[2])
local fields = scan[2]
local older = tonumber(ARGV[3])
local removed = 0
local youngest = 0
for i = 1, #fields, 2 do
  local key = fields[i]
  if key ~= '' then
    local last, time = string.match(fields[i + 1], '^%d+:(%d+):(%d+)$')
    if last ~= nil and tonumber(last) < base then
      time = tonumber(time)
      if time < older then
        removed = removed + redis.call('HDEL', KEYS[1], key)
      elseif time > youngest then
        youngest = time
      end
    end
  end
end
return {scan[1], removed, string.format('%d', youngest)}
`;
