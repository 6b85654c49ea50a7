/**
 * The Redis engine's fork scripts (redis-forks.ts; docs/storage.md#forks). A fork touches two sessions whose keys
 * may live in different Cluster slots, so each script touches one session's keys only: first the parent's
 * (`FORK_REGISTER_SCRIPT`), then the fork's own (`FORK_CREATE_SCRIPT`), and on a refusal of the second the first is
 * undone (`SREM`).
 */

/**
 * Record a fork in its parent, if the parent is still what the fork was decided on.
 * KEYS: 1 the parent's log, 2 its epoch, 3 its idempotency hash (field '': its base), 4 its lineage hash, 5 its
 * forks (a hash: fork id → when it was listed, Redis time in ms, kept while the fork is being made). ARGV: 1 the parent's epoch as read, 2 atSeq, 3 the fork's id, 4 the deepest nesting allowed.
 * Returns {'parent-changed', epoch, length} | {'too-deep', epoch, depth} | {'registered', epoch, depth, added}
 * (`added` 0 when the fork was listed already: a retried fork).
 */
export const FORK_REGISTER_SCRIPT = `#!lua
local epoch = redis.call('GET', KEYS[2]) or ''
local length = (tonumber(redis.call('HGET', KEYS[3], '')) or 0) + redis.call('XLEN', KEYS[1])
if epoch ~= ARGV[1] or length <= tonumber(ARGV[2]) then return {'parent-changed', epoch, length} end
local depth = (tonumber(redis.call('HGET', KEYS[4], 'depth')) or 0) + 1
if depth > tonumber(ARGV[4]) then return {'too-deep', epoch, depth} end
local now = redis.call('TIME')
local added = redis.call('HSETNX', KEYS[5], ARGV[3], now[1] .. string.format('%03d', math.floor(tonumber(now[2]) / 1000)))
return {'registered', epoch, depth, added}
`;

/**
 * Make the fork's own keys, only if the session does not exist (no epoch, no events): its epoch, its base
 * (`atSeq + 1`, in the idempotency hash's field ''), its lineage hash and its first events (the repair), then a
 * notice on its channel so that nodes watching the (empty) id re-read it. Nothing of the prefix is copied.
 * KEYS: 1 log, 2 epoch, 3 idempotency hash, 4 lineage hash. ARGV: 1 candidate epoch, 2 base, 3 parent,
 * 4 parentEpoch, 5 depth, 6 channel, then one msgpack body per event.
 * Returns {'forked', epoch, time} | {'target-exists', epoch, length, {lineage hash fields}}.
 */
export const FORK_CREATE_SCRIPT = `#!lua
local epoch = redis.call('GET', KEYS[2])
local length = (tonumber(redis.call('HGET', KEYS[3], '')) or 0) + redis.call('XLEN', KEYS[1])
if epoch or length > 0 then
  return {'target-exists', epoch or '', length, redis.call('HGETALL', KEYS[4])}
end
local base = tonumber(ARGV[2])
local now = redis.call('TIME')
local time = now[1] .. string.format('%03d', math.floor(tonumber(now[2]) / 1000))
redis.call('SET', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[3], '', ARGV[2])
redis.call('HSET', KEYS[4], 'parent', ARGV[3], 'forkSeq', tostring(base - 1), 'parentEpoch', ARGV[4], 'depth', ARGV[5])
for i = 7, #ARGV do
  redis.call('XADD', KEYS[1], string.format('%d-1', base + i - 7), 'e', ARGV[i], 't', time)
end
redis.call('PUBLISH', ARGV[6], 'deleted')
return {'forked', ARGV[1], time}
`;

/**
 * Take stale entries out of a session's forks: those listed more than ARGV[1] ms ago (Redis time) among the ids
 * that follow, which the caller found not to exist as forks of it (their maker died between its two steps).
 * KEYS: 1 the forks hash. Returns how many went.
 */
export const FORK_PRUNE_SCRIPT = `#!lua flags=allow-oom
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local pruned = 0
for i = 2, #ARGV do
  local listed = tonumber(redis.call('HGET', KEYS[1], ARGV[i]))
  if listed and ms - listed > tonumber(ARGV[1]) then
    pruned = pruned + redis.call('HDEL', KEYS[1], ARGV[i])
  end
end
return pruned
`;

/** The session's epoch and lineage hash, read together (no writes). KEYS: 1 epoch, 2 lineage hash. */
export const LINEAGE_SCRIPT = `#!lua flags=no-writes
return {redis.call('GET', KEYS[1]) or '', redis.call('HGETALL', KEYS[2])}
`;
