import { toStoreError } from './redis-errors.ts';
import { byJoinOrder, parsePresenceEntry, type PresenceEntry, type PresenceStore } from '../presence-store.ts';

/** What presence needs of a Redis connection (a single node, a Sentinel-managed one or a Cluster). */
export interface EvalConnection {
  eval(script: string, numberOfKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/**
 * KEYS: expiry zset (member id, score expiry ms), entries hash (id → JSON). ARGV: ttl ms, then id, json pairs.
 * Expiry is on the Redis clock (TIME), so nodes with skewed clocks agree. Lapsed entries of every node are dropped.
 */
const REFRESH_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl = tonumber(ARGV[1])
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
for i = 1, #lapsed do
  redis.call('ZREM', KEYS[1], lapsed[i])
  redis.call('HDEL', KEYS[2], lapsed[i])
end
for i = 2, #ARGV, 2 do
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[i])
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
end
if redis.call('ZCARD', KEYS[1]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl * 2)
  redis.call('PEXPIRE', KEYS[2], ttl * 2)
end
return 1
`;

/** KEYS: expiry zset, entries hash. Returns the JSON of the watchers that have not lapsed. Writes nothing. */
const LIST_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')
if #ids == 0 then return {} end
return redis.call('HMGET', KEYS[2], unpack(ids))
`;

const REMOVE_SCRIPT = `
for i = 1, #ARGV do
  redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('HDEL', KEYS[2], ARGV[i])
end
return 1
`;

/** Presence on Redis: two keys per session, tagged like the session's other keys (one Cluster slot). */
export class RedisPresence implements PresenceStore {
  readonly #redis: EvalConnection;
  readonly #prefix: string;

  constructor(redis: EvalConnection, keyPrefix: string) {
    this.#redis = redis;
    this.#prefix = keyPrefix;
  }

  #keys(sessionId: string): [string, string] {
    const base = `${this.#prefix}{${sessionId}}:presence`;
    return [base, `${base}:info`];
  }

  async refresh(sessionId: string, entries: readonly PresenceEntry[], ttlMs: number): Promise<void> {
    const args = entries.flatMap((entry) => [entry.id, JSON.stringify(entry)]);
    await this.#eval('presence refresh', REFRESH_SCRIPT, ...this.#keys(sessionId), Math.ceil(ttlMs), ...args);
  }

  async remove(sessionId: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.#eval('presence remove', REMOVE_SCRIPT, ...this.#keys(sessionId), ...ids);
  }

  /** EVAL with the session's two keys; failures become the store's errors (STORE_UNAVAILABLE, …). */
  async #eval(operation: string, script: string, ...keysAndArgs: (string | number)[]): Promise<unknown> {
    try {
      return await this.#redis.eval(script, 2, ...keysAndArgs);
    } catch (error) {
      throw toStoreError(error, operation, false);
    }
  }

  async list(sessionId: string): Promise<PresenceEntry[]> {
    const reply = await this.#eval('presence list', LIST_SCRIPT, ...this.#keys(sessionId));
    if (!Array.isArray(reply)) return [];
    const entries: PresenceEntry[] = [];
    for (const item of reply) {
      const entry = typeof item === 'string' ? parsePresenceEntry(item) : undefined;
      if (entry !== undefined) entries.push(entry);
    }
    return entries.sort(byJoinOrder);
  }
}
