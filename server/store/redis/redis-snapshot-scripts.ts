/**
 * The Redis engine's snapshot scripts (docs/storage.md#snapshots). A snapshot lives in a hash beside its session
 * (same hash tag): `e` its epoch, `s` its seq, `v` the stored value (codec/snapshot-codec.ts).
 */

/**
 * Read a snapshot with the session's epoch and length (base + XLEN), in one step. KEYS: 1 log, 2 epoch, 3 snapshot
 * hash, 4 idempotency hash (field '': the base, redis-scripts.ts). Returns {epoch or '', length, value or false}.
 * Reads only.
 */
export const SNAPSHOT_GET_SCRIPT = `#!lua flags=no-writes
local length = (tonumber(redis.call('HGET', KEYS[4], '')) or 0) + redis.call('XLEN', KEYS[1])
local epoch = redis.call('GET', KEYS[2])
local value = redis.call('HGET', KEYS[3], 'v')
return {epoch or '', length, value}
`;

/**
 * Write a snapshot if it is still current: the session's epoch is ARGV[1], its log reaches seq ARGV[2] (base + XLEN
 * > seq; the event itself may have been trimmed), and the stored snapshot is not of a later seq of the same epoch.
 * KEYS: 1 log, 2 epoch, 3 snapshot hash, 4 idempotency hash. ARGV: 1 epoch, 2 seq, 3 value. Returns 'written' or
 * 'stale'.
 */
export const SNAPSHOT_PUT_SCRIPT = `#!lua
local epoch = redis.call('GET', KEYS[2])
if epoch ~= ARGV[1] then return 'stale' end
local seq = tonumber(ARGV[2])
local length = (tonumber(redis.call('HGET', KEYS[4], '')) or 0) + redis.call('XLEN', KEYS[1])
if seq >= length then return 'stale' end
local stored = redis.call('HMGET', KEYS[3], 'e', 's')
if stored[1] == epoch and stored[2] and tonumber(stored[2]) > seq then return 'stale' end
redis.call('HSET', KEYS[3], 'e', epoch, 's', ARGV[2], 'v', ARGV[3])
return 'written'
`;

/** Give a lease back if its holder is ARGV[1]. KEYS: 1 lease. Returns 1 when released. */
export const LEASE_RELEASE_SCRIPT = `#!lua
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
