/**
 * The Redis engine's retention scripts (docs/operations.md#retention). A session's tombstone is the string
 * `<prefix>{<id>}:expired` holding its expiry time (epoch ms), with a `PX` expiry of its own.
 */
import { DELETED_NOTICE } from './redis-scripts.ts';

/** Lua: `time`, the commit time of the log's (KEYS[2]) last entry, or '' when it holds none. */
const LAST_ENTRY_TIME_LUA = `local time = ''
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
if #last > 0 then
  local fields = last[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 't' then time = fields[i + 1] end
  end
end
`;

/**
 * Expire a session if the conditions hold. KEYS: 1 epoch, 2 log, 3 tombstone, 4 idempotency hash (field '': the
 * base of a trimmed log), then the session's other data keys (`sessionDataKeys`), its lineage hash and, last, its forks hash (a session
 * with forks is kept: 'active'). ARGV: 1 expected epoch ('' = any), 2 idle since (epoch ms, '' = any activity), 3 expiredAt
 * (epoch ms), 4 tombstone TTL (ms), 5 channel, 6 '1': a log holding no
 * event counts as idle (`emptyIsIdle`). Returns {status, epoch, length, last activity ('' if none)}:
 * 'missing' (no epoch), 'conflict' (another epoch), 'active' (written to after ARGV[2], or no entry to tell: a log
 * trimmed to nothing is kept) or 'expired' (every key
 * but the tombstone deleted, the tombstone written, the deletion notice published, as `deleteSession` does). The
 * length is the session's next seq (base + entries), as the head script counts it.
 */
export const EXPIRE_SCRIPT = `#!lua flags=allow-oom
local epoch = redis.call('GET', KEYS[1])
if not epoch then return {'missing', '', '0', ''} end
if ARGV[1] ~= '' and ARGV[1] ~= epoch then return {'conflict', epoch, '0', ''} end
local length = (tonumber(redis.call('HGET', KEYS[4], '')) or 0) + redis.call('XLEN', KEYS[2])
${LAST_ENTRY_TIME_LUA}if ARGV[2] ~= '' and ((time == '' and ARGV[6] ~= '1') or (time ~= '' and tonumber(time) > tonumber(ARGV[2]))) then
  return {'active', epoch, tostring(length), time}
end
if redis.call('HLEN', KEYS[#KEYS]) > 0 then return {'active', epoch, tostring(length), time} end
redis.call('DEL', KEYS[1], KEYS[2])
for i = 4, #KEYS do redis.call('DEL', KEYS[i]) end
redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[4])
redis.call('PUBLISH', ARGV[5], '${DELETED_NOTICE}')
return {'expired', epoch, tostring(length), time}
`;

/** KEYS: 1 epoch, 2 tombstone. Returns {epoch or '', tombstone or ''}. Reads only. */
export const EXPIRY_STATUS_SCRIPT = `#!lua flags=no-writes
local epoch = redis.call('GET', KEYS[1])
local expired = redis.call('GET', KEYS[2])
return {epoch or '', expired or ''}
`;

/**
 * KEYS: 1 epoch, 2 log, 3 idempotency hash (the base). Returns {epoch or '', length (next seq), time of the last
 * entry or ''}. Reads only.
 */
export const ACTIVITY_SCRIPT = `#!lua flags=no-writes
local epoch = redis.call('GET', KEYS[1])
if not epoch then return {'', 0, ''} end
local length = (tonumber(redis.call('HGET', KEYS[3], '')) or 0) + redis.call('XLEN', KEYS[2])
${LAST_ENTRY_TIME_LUA}return {epoch, length, time}
`;

/** Take the sweep lease, or extend it when ARGV[1] holds it. KEYS: 1 lease. ARGV: 1 owner, 2 ttl ms. 1 if held. */
export const SWEEP_LEASE_SCRIPT = `#!lua
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;
