/**
 * The Redis engine's restore scripts (restore-store.ts; docs/storage.md#restoring-an-archived-prefix). A session's
 * stage is a stream beside its log, `{<id>}:restore` (same hash tag: one Cluster slot), whose entries are exactly
 * the log's: id `<seq>-1`, fields `e` (stored body) and `t` (commit time).
 */

/** The seq of the stage's last entry + 1 (0 when it is empty): a Lua snippet shared by both scripts. */
const STAGED_NEXT = `
local function stagedNext(key)
  local last = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)
  if #last == 0 then return nil end
  return tonumber(string.match(last[1][1], '^(%d+)-')) + 1
end
`;

/**
 * Append events to a stage. KEYS: 1 stage. ARGV: 1 first seq, 2 expiry (ms), then per event its body and time.
 * Returns {'staged', next seq} or {'gap', the stage's next seq} (ARGV[1] does not follow the stage: nothing written).
 * Not `allow-oom`: a stage grows Redis' memory, so a full Redis refuses it up front.
 */
export const STAGE_SCRIPT = `#!lua
${STAGED_NEXT}
local seq = tonumber(ARGV[1])
local staged = stagedNext(KEYS[1])
if staged and staged ~= seq then return {'gap', staged} end
for i = 3, #ARGV, 2 do
  redis.call('XADD', KEYS[1], string.format('%d-1', seq), 'e', ARGV[i], 't', ARGV[i + 1])
  seq = seq + 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {'staged', seq}
`;

/**
 * Put a stage in place of the session's log. KEYS: 1 log, 2 epoch, 3 idempotency hash (field '': the base), 4 stage.
 * ARGV: 1 expected epoch, 2 most entries to copy. Checks the epoch, that the stage starts at or below the log's base
 * and ends inside the log, copies the log's entries past the stage's end (appended since the copy; at most ARGV[2],
 * else 'behind'), RENAMEs the stage to the log (PERSIST: RENAME keeps the stage's expiry) and sets the base to the
 * stage's first seq ('' for 0, as a log never trimmed). Returns {status, epoch, base, length, staged next, copied}.
 */
export const SWAP_SCRIPT = `#!lua
${STAGED_NEXT}
local epoch = redis.call('GET', KEYS[2]) or ''
local base = tonumber(redis.call('HGET', KEYS[3], '')) or 0
local length = base + redis.call('XLEN', KEYS[1])
local staged = stagedNext(KEYS[4])
if epoch == '' or epoch ~= ARGV[1] then return {'conflict', epoch, base, length, staged or 0, 0} end
if not staged then return {'gap', epoch, base, length, 0, 0} end
local first = redis.call('XRANGE', KEYS[4], '-', '+', 'COUNT', 1)
local start = tonumber(string.match(first[1][1], '^(%d+)-'))
if start > base or staged < base or staged > length then return {'gap', epoch, base, length, staged, 0} end
local behind = length - staged
if behind > tonumber(ARGV[2]) then return {'behind', epoch, base, length, staged, 0} end
if behind > 0 then
  for _, entry in ipairs(redis.call('XRANGE', KEYS[1], string.format('%d-1', staged), '+')) do
    redis.call('XADD', KEYS[4], entry[1], unpack(entry[2]))
  end
end
redis.call('RENAME', KEYS[4], KEYS[1])
redis.call('PERSIST', KEYS[1])
if start == 0 then
  redis.call('HSET', KEYS[3], '', '')
else
  redis.call('HSET', KEYS[3], '', string.format('%d', start))
end
return {'swapped', epoch, start, length, staged, behind}
`;
