/**
 * The Redis engine's metadata scripts (docs/storage.md#session-metadata). A session's metadata is the hash
 * `{<id>}:meta` beside its log: `rev` (changes), `ca` createdAt, `cb` createdBy, `t` title, `p` parent, `fs` forkSeq,
 * and `l:<key>` per label. Every change publishes `m|<JSON array of the hash's fields and values>` on the session's
 * channel (commit notices start with a digit, the delete notice is `deleted`).
 */

/** The message prefix of a metadata notice on a session's channel. */
export const METADATA_NOTICE_PREFIX = 'm|';

/** KEYS: 1 epoch, 2 meta. Returns {epoch or '', the hash's fields and values}. Reads only. */
export const METADATA_GET_SCRIPT = `#!lua flags=no-writes
local epoch = redis.call('GET', KEYS[1])
return {epoch or '', redis.call('HGETALL', KEYS[2])}
`;

/**
 * Merge a patch if the session exists. KEYS: 1 epoch, 2 meta. ARGV: 1 channel, 2 most labels, 3 title op ('' keep,
 * 's' set, 'd' delete), 4 title, then per label 3 items: field ('l:<key>'), op ('s' or 'd'), value.
 * Returns {'missing'} (nothing written), {'too-many', count} (nothing written) or {'ok', fields and values}.
 */
export const METADATA_PATCH_SCRIPT = `#!lua
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local all = redis.call('HGETALL', KEYS[2])
local present = {}
local count = 0
for i = 1, #all, 2 do
  if string.sub(all[i], 1, 2) == 'l:' then present[all[i]] = true; count = count + 1 end
end
for i = 5, #ARGV, 3 do
  local field = ARGV[i]
  if ARGV[i + 1] == 's' and not present[field] then present[field] = true; count = count + 1 end
  if ARGV[i + 1] == 'd' and present[field] then present[field] = nil; count = count - 1 end
end
if count > tonumber(ARGV[2]) then return {'too-many', tostring(count)} end
if ARGV[3] == 's' then redis.call('HSET', KEYS[2], 't', ARGV[4]) end
if ARGV[3] == 'd' then redis.call('HDEL', KEYS[2], 't') end
for i = 5, #ARGV, 3 do
  if ARGV[i + 1] == 's' then redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 2]) else redis.call('HDEL', KEYS[2], ARGV[i]) end
end
redis.call('HINCRBY', KEYS[2], 'rev', 1)
local now = redis.call('HGETALL', KEYS[2])
redis.call('PUBLISH', ARGV[1], '${METADATA_NOTICE_PREFIX}' .. cjson.encode(now))
return {'ok', now}
`;

/**
 * Set the fields not set yet. KEYS: 1 meta. ARGV: 1 channel, then field, value pairs. Publishes when anything was
 * set. Returns the fields and values.
 */
export const METADATA_INIT_SCRIPT = `#!lua
local changed = 0
for i = 2, #ARGV, 2 do changed = changed + redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) end
if changed > 0 then redis.call('HINCRBY', KEYS[1], 'rev', 1) end
local now = redis.call('HGETALL', KEYS[1])
if changed > 0 then redis.call('PUBLISH', ARGV[1], '${METADATA_NOTICE_PREFIX}' .. cjson.encode(now)) end
return now
`;

/**
 * A session's summary for the listing. KEYS: 1 log, 2 epoch, 3 meta, 4 idempotency hash (its field '' is the base:
 * the first seq the stream holds after a trim, or a fork's first own seq). Returns {epoch or '', length (base +
 * XLEN), last event's time or '', seq 0's time or '' (when the stream holds it), MEMORY USAGE of the log or 0, the
 * meta hash's fields and values}. Reads only.
 */
export const SUMMARY_SCRIPT = `#!lua flags=no-writes
local epoch = redis.call('GET', KEYS[2])
local held = redis.call('XLEN', KEYS[1])
local base = tonumber(redis.call('HGET', KEYS[4], '') or '0') or 0
local length = base + held
local function timeOf(entries)
  local entry = entries[1]
  if not entry then return '' end
  local fields = entry[2]
  for i = 1, #fields, 2 do if fields[i] == 't' then return fields[i + 1] end end
  return ''
end
local last = timeOf(redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1))
local first = ''
if base == 0 then first = timeOf(redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)) end
local bytes = 0
if held > 0 then bytes = redis.call('MEMORY', 'USAGE', KEYS[1]) or 0 end
return {epoch or '', length, last, first, bytes, redis.call('HGETALL', KEYS[3])}
`;
