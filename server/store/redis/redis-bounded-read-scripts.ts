/**
 * The Redis engine's page read bounded by bytes (docs/storage.md, "Reads bounded by bytes"): the epoch and the
 * stream's entries from a seq, cut in the script so that Redis never builds a reply much larger than the budget.
 */

/**
 * Read up to ARGV[2] entries from seq ARGV[1] whose sizes take at most ARGV[3] bytes together (the first entry
 * whatever its size), with the epoch, in one step. KEYS: 1 epoch, 2 log, 3 idempotency hash (its field '' holds the base: the first seq the stream holds,
 * redis-trim.ts). Returns {epoch or '', entries, cut, base or false}:
 * `entries` as XRANGE returns them, `cut` 1 when entries within the count were left out for bytes, else 0. A session
 * without an epoch returns no entries (they are not looked at). An entry's size is the length of its field values,
 * a `t` value of at most 16 bytes (a commit time) not counted: a well-formed entry counts its body, as the memory
 * engine does. The stream is read in small steps (at most 32 entries, fewer once the entries seen are large), so
 * Lua holds about the budget too. Reads only.
 */
export const BOUNDED_READ_SCRIPT = `#!lua flags=no-writes
local epoch = redis.call('GET', KEYS[1])
if not epoch then return {'', {}, 0, false} end
local base = redis.call('HGET', KEYS[3], '')
local limit = tonumber(ARGV[2])
local maxBytes = tonumber(ARGV[3])
local out = {}
local bytes = 0
local largest = 1
local start = ARGV[1] .. '-0'
local step = math.min(8, limit)
while #out < limit do
  local want = math.min(step, limit - #out)
  local entries = redis.call('XRANGE', KEYS[2], start, '+', 'COUNT', want)
  for i = 1, #entries do
    local fields = entries[i][2]
    local size = 0
    for f = 1, #fields - 1, 2 do
      local value = fields[f + 1]
      if fields[f] ~= 't' or #value > 16 then size = size + #value end
    end
    if #out > 0 and bytes + size > maxBytes then return {epoch, out, 1, base} end
    bytes = bytes + size
    if size > largest then largest = size end
    out[#out + 1] = entries[i]
  end
  if #entries < want then break end
  start = '(' .. entries[#entries][1]
  step = math.max(1, math.min(32, math.floor((maxBytes - bytes) / largest)))
end
return {epoch, out, 0, base}
`;
