import { keysWithCount, sessionDataKeys, type SessionKeys } from './redis-keys.ts';

/**
 * The Redis engine's server-side scripts (Redis ≥ 7: `#!lua` shebang, so a script that may write is refused
 * up front under OOM instead of failing half-way). Loaded with ioredis `defineCommand` (EVALSHA, EVAL fallback).
 * docs/storage.md walks through them.
 */

/**
 * Commit a group of batches (appends) of one session atomically; a single commit is the group of one.
 * KEYS: 1 log stream, 2 epoch, 3 idempotency hash.
 * ARGV: 1 candidate epoch, 2 expectedSeq, 3 channel, 4 expected epoch ('' = any), 5 number of batches B,
 *       6 commit time to store ('' = Redis' clock),
 *       then per batch 2 items: idempotency key ('' = none), event count;
 *       then the msgpack array header for all the events, then one msgpack body per event.
 * Returns {'committed', epoch, time} | {'keys-known', epoch, {record or '' per batch}} | {'conflict', epoch, length}
 * (a record is 'first:last:time'; epoch '' when the session has none). Every check happens before anything is
 * written. A session without an epoch gets the candidate with its first events (before the first XADD): a refused
 * commit, like a read, creates nothing.
 * Every commit makes sure the idempotency hash exists (field '', never an idempotency key): on Redis Cluster, a
 * multi-key command on a slot being moved gets TRYAGAIN while any of its keys is missing, so a session with events
 * must have all three keys for its commits to go on through a resharding. The same field holds the session's base
 * (the first seq the stream holds after a trim; '' = 0): the session's length, its next seq, is base + XLEN.
 */
export const COMMIT_SCRIPT = `#!lua
local length = (tonumber(redis.call('HGET', KEYS[3], '')) or 0) + redis.call('XLEN', KEYS[1])
local epoch = redis.call('GET', KEYS[2])
local current = epoch or ''
local batches = tonumber(ARGV[5])
local records = {}
local known = false
for b = 1, batches do
  local key = ARGV[5 + 2 * b]
  local record = ''
  if key ~= '' then
    record = redis.call('HGET', KEYS[3], key)
    if record then known = true else record = '' end
  end
  records[b] = record
end
if known then return {'keys-known', current, records} end
if ARGV[4] ~= '' and ARGV[4] ~= current then return {'conflict', current, tostring(length)} end
if length ~= tonumber(ARGV[2]) then return {'conflict', current, tostring(length)} end
if not epoch then
  epoch = ARGV[1]
  redis.call('SET', KEYS[2], epoch)
end
local time = ARGV[6]
if time == '' then
  local now = redis.call('TIME')
  time = now[1] .. string.format('%03d', math.floor(tonumber(now[2]) / 1000))
end
redis.call('HSETNX', KEYS[3], '', '')
local header = 7 + 2 * batches
local seq = length
for b = 1, batches do
  local first = seq
  for i = 1, tonumber(ARGV[6 + 2 * b]) do
    redis.call('XADD', KEYS[1], string.format('%d-1', seq), 'e', ARGV[header + 1 + seq - length], 't', time)
    seq = seq + 1
  end
  local key = ARGV[5 + 2 * b]
  if key ~= '' then
    redis.call('HSET', KEYS[3], key, string.format('%d:%d:', first, seq - 1) .. time)
  end
end
redis.call('PUBLISH', ARGV[3], string.format('%d:', length) .. time .. ':' .. epoch .. '|' .. table.concat(ARGV, '', header))
return {'committed', epoch, time}
`;

/**
 * Head of a session: its epoch ('' when it has none), its length (next seq) and its base (first seq held, 0 when
 * never trimmed). KEYS: 1 log stream, 2 epoch, 3 idempotency hash (field '': the base). Reads only (`no-writes`:
 * it runs under OOM and on replicas): a reader never creates anything.
 */
export const HEAD_SCRIPT = `#!lua flags=no-writes
local base = tonumber(redis.call('HGET', KEYS[3], '')) or 0
local length = base + redis.call('XLEN', KEYS[1])
local epoch = redis.call('GET', KEYS[2])
return {epoch or '', length, base}
`;

/** The message published on a session's channel when the session was deleted. */
export const DELETED_NOTICE = 'deleted';

/**
 * Delete a session and tell every node, unless it has forks (they read their prefix from it). KEYS: 1 log, 2 epoch,
 * 3 lineage hash, 4 its forks (hash), then the rest of the session's keys (`sessionDataKeys`, the retention
 * tombstone): all are deleted. ARGV: 1 channel.
 * Returns {number of keys deleted, 0, the parent of a fork ('' for none)} | {-1, number of forks} (nothing deleted).
 */
export const DELETE_SCRIPT = `#!lua flags=allow-oom
local forks = redis.call('HLEN', KEYS[4])
if forks > 0 then return {-1, forks} end
local parent = redis.call('HGET', KEYS[3], 'parent') or ''
local deleted = redis.call('DEL', unpack(KEYS))
redis.call('PUBLISH', ARGV[1], '${DELETED_NOTICE}')
return {deleted, 0, parent}
`;

/** The arguments of `DELETE_SCRIPT` (defined without a fixed number of keys) for a session's keys. */
export function deleteScriptArgs(keys: SessionKeys): (string | number)[] {
  return [
    ...keysWithCount([keys.log, keys.epoch, keys.lineage, keys.forks, ...sessionDataKeys(keys), keys.expired]),
    keys.channel,
  ];
}

/**
 * `script` publishing with `command`: `PUBLISH` on one Redis, `SPUBLISH` on a Cluster (sharded pub/sub: the notice
 * stays on the session's shard; its channel has the session's hash tag, so the script touches one slot only).
 */
export function withPublishCommand(script: string, command: 'PUBLISH' | 'SPUBLISH'): string {
  const publish = "redis.call('PUBLISH',";
  if (!script.includes(publish)) throw new Error('withPublishCommand: the script publishes nothing');
  return script.replaceAll(publish, `redis.call('${command}',`);
}
