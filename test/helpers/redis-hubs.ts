import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { startRedisHubs, type RedisHubCluster } from './hub.ts';
import { RedisServer } from './redis-server.ts';

/** What `useRedisHubs` gives a describe block (read it inside tests: it exists from `beforeAll` on). */
export interface RedisHubsFixture {
  readonly redis: RedisServer;
  readonly cluster: RedisHubCluster;
  /** A plain connection to the same Redis, for a test to act as an operator or a failure would. */
  readonly admin: Redis;
}

/**
 * For one describe block: its own redis-server on a free port, `count` hub nodes on it (keys under `keyPrefix`)
 * and an admin connection, started before the tests and stopped after them.
 */
export function useRedisHubs(keyPrefix: string, count = 2): RedisHubsFixture {
  let started: RedisHubsFixture | undefined;
  beforeAll(async () => {
    const redis = await RedisServer.start();
    const cluster = await startRedisHubs(redis.url, { count, keyPrefix });
    started = { redis, cluster, admin: new Redis(redis.url) };
  });
  afterAll(async () => {
    if (started === undefined) return;
    started.admin.disconnect();
    await started.cluster.close();
    await started.redis.stop();
  });
  const get = (): RedisHubsFixture => {
    if (started === undefined) throw new Error('useRedisHubs: read it inside a test (after beforeAll)');
    return started;
  };
  return {
    get redis() {
      return get().redis;
    },
    get cluster() {
      return get().cluster;
    },
    get admin() {
      return get().admin;
    },
  };
}
