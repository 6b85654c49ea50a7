/**
 * The Redis engine's server-side scripts (Redis ≥ 7: `#!lua` shebang, so a script that may write is refused
 * up front under OOM instead of failing half-way). Loaded with ioredis `defineCommand` (EVALSHA, EVAL fallback).
 * docs/storage.md walks through them.
 */

/**
 * Commit one batch atomically.
 * KEYS: 1 log stream, 2 epoch, 3 idempotency hash.
 * ARGV: 1 candidate epoch, 2 expectedSeq, 3 idempotency key ('' = none), 4 batch digest, 5 channel,
 *       6 expected epoch ('' = any), 7 msgpack array header for the batch, 8.. one msgpack body per event.
 * Returns {'committed', epoch, time} | {'duplicate', epoch, 'first:last:time:digest'} | {'conflict', epoch, length}.
 * Every check happens before the first event is written; the only possible write before a check is the epoch
 * (a session's first access), which is idempotent.
 */
export const COMMIT_SCRIPT = `#!lua
local epoch = redis.call('GET', KEYS[2])
if not epoch then
  epoch = ARGV[1]
  redis.call('SET', KEYS[2], epoch)
end
local key = ARGV[3]
if key ~= '' then
  local record = redis.call('HGET', KEYS[3], key)
  if record then return {'duplicate', epoch, record} end
end
local length = redis.call('XLEN', KEYS[1])
if ARGV[6] ~= '' and ARGV[6] ~= epoch then return {'conflict', epoch, tostring(length)} end
if length ~= tonumber(ARGV[2]) then return {'conflict', epoch, tostring(length)} end
local now = redis.call('TIME')
local time = now[1] .. string.format('%03d', math.floor(tonumber(now[2]) / 1000))
local count = #ARGV - 7
for i = 1, count do
  redis.call('XADD', KEYS[1], string.format('%d-1', length + i - 1), 'e', ARGV[7 + i], 't', time)
end
if key ~= '' then
  redis.call('HSET', KEYS[3], key, string.format('%d:%d:', length, length + count - 1) .. time .. ':' .. ARGV[4])
end
redis.call('PUBLISH', ARGV[5], string.format('%d:', length) .. time .. ':' .. epoch .. '|' .. ARGV[7] .. table.concat(ARGV, '', 8))
return {'committed', epoch, time}
`;

/**
 * Head of a session: its epoch (created from the candidate if missing) and its length.
 * KEYS: 1 log stream, 2 epoch. ARGV: 1 candidate epoch. Returns {epoch, length}. `allow-oom`: creating a
 * missing epoch is a tiny write, and a full Redis must still answer heads for reads.
 */
export const HEAD_SCRIPT = `#!lua flags=allow-oom
local epoch = redis.call('GET', KEYS[2])
if not epoch then
  epoch = ARGV[1]
  redis.call('SET', KEYS[2], epoch)
end
return {epoch, redis.call('XLEN', KEYS[1])}
`;

/**
 * A page of a session's log with its epoch, atomically. KEYS: 1 log stream, 2 epoch. ARGV: 1 first entry id,
 * 2 count. Returns {epoch or '', entries} (entries as XRANGE returns them). Never writes.
 */
export const READ_SCRIPT = `#!lua flags=no-writes,allow-oom
local epoch = redis.call('GET', KEYS[2])
if not epoch then return {'', {}} end
return {epoch, redis.call('XRANGE', KEYS[1], ARGV[1], '+', 'COUNT', ARGV[2])}
`;

/** The message published on a session's channel when the session was deleted. */
export const DELETED_NOTICE = 'deleted';

/**
 * Delete a session and tell every node. KEYS: 1 log, 2 epoch, 3 idempotency hash. ARGV: 1 channel.
 * Returns the number of keys deleted.
 */
export const DELETE_SCRIPT = `#!lua flags=allow-oom
local deleted = redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('PUBLISH', ARGV[1], '${DELETED_NOTICE}')
return deleted
`;
