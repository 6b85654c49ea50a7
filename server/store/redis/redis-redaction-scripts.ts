/**
 * The Redis engine's redaction script (docs/storage.md#redaction). A stream cannot edit an entry in place: the
 * entries from the first redacted seq on are deleted and added again with the same ids (the placeholders in place
 * of the redacted bodies), the stream's last id set back in between (`XSETID`), then the audit event is appended.
 */

/** The message published on a session's channel when it was redacted (watchers re-read under the new epoch). */
export const REDACTED_NOTICE = 'redacted';

/**
 * Redact some entries of a session, in one atomic step. KEYS: 1 log, 2 epoch, 3 snapshot hash, 4 epochs hash (new
 * epoch → the one it replaced), 5 idempotency hash (its field '' is the first seq held after a trim).
 * ARGV: 1 the epoch the plan was made in, 2 the new epoch, 3 channel, 4 the audit event's body, 5 count N,
 * then per redacted entry 3 items: seq, SHA-1 of its stored body when planned, its placeholder body. N may be 0
 * (the seqs were archived and rewritten there): then only the audit event is appended and the epoch renewed.
 * Returns {'moved'} (nothing written: the epoch or a planned body changed meanwhile) or
 * {'redacted', new epoch, audit seq, time}.
 */
export const REDACT_SCRIPT = `#!lua
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return {'moved'} end
local function body_of(fields)
  local body, time
  for k = 1, #fields, 2 do
    if fields[k] == 'e' then body = fields[k + 1] elseif fields[k] == 't' then time = fields[k + 1] end
  end
  return body, time
end
local replace = {}
local first = nil
for i = 1, tonumber(ARGV[5]) do
  local at = 3 + 3 * i
  local seq = tonumber(ARGV[at])
  local id = string.format('%d-1', seq)
  local entry = redis.call('XRANGE', KEYS[1], id, id)
  if #entry == 0 then return {'moved'} end
  local body = body_of(entry[1][2])
  if not body or redis.sha1hex(body) ~= ARGV[at + 1] then return {'moved'} end
  replace[id] = ARGV[at + 2]
  if first == nil or seq < first then first = seq end
end
local audit
if first == nil then
  -- Nothing held here changes (the seqs were rewritten in the archive): only the audit event and the new epoch.
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
  if #last > 0 then
    audit = tonumber(string.match(last[1][1], '^(%d+)')) + 1
  else
    audit = tonumber(redis.call('HGET', KEYS[5], '') or '0')
  end
else
  local from = string.format('%d-1', first)
  local tail = redis.call('XRANGE', KEYS[1], from, '+')
  local before = redis.call('XREVRANGE', KEYS[1], '(' .. from, '-', 'COUNT', 1)
  if #before == 0 then
    redis.call('DEL', KEYS[1])
  else
    for i = 1, #tail, 500 do
      local ids = {}
      for j = i, math.min(i + 499, #tail) do ids[#ids + 1] = tail[j][1] end
      redis.call('XDEL', KEYS[1], unpack(ids))
    end
    redis.call('XSETID', KEYS[1], before[1][1])
  end
  for _, entry in ipairs(tail) do
    local body, time = body_of(entry[2])
    redis.call('XADD', KEYS[1], entry[1], 'e', replace[entry[1]] or body, 't', time)
  end
  audit = tonumber(string.match(tail[#tail][1], '^(%d+)')) + 1
end
local now = redis.call('TIME')
local time = now[1] .. string.format('%03d', math.floor(tonumber(now[2]) / 1000))
redis.call('XADD', KEYS[1], string.format('%d-1', audit), 'e', ARGV[4], 't', time)
redis.call('SET', KEYS[2], ARGV[2])
redis.call('HSET', KEYS[4], ARGV[2], ARGV[1])
redis.call('DEL', KEYS[3])
redis.call('PUBLISH', ARGV[3], '${REDACTED_NOTICE}')
return {'redacted', ARGV[2], string.format('%d', audit), time}
`;

/**
 * The epochs an epoch replaced by redactions, most recent first, in one round trip. KEYS: 1 epochs hash (new epoch
 * → the one it replaced). ARGV: 1 the epoch to start from, 2 most hops to follow (`MAX_PRIOR_EPOCHS`). Reads only.
 */
export const PRIOR_EPOCHS_SCRIPT = `#!lua flags=no-writes
local prior = {}
local at = ARGV[1]
local limit = tonumber(ARGV[2])
while #prior < limit do
  local before = redis.call('HGET', KEYS[1], at)
  if not before then break end
  prior[#prior + 1] = before
  at = before
end
return prior
`;
