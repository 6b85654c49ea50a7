import { Redis } from 'ioredis';
import { startRedisHubs, type RedisHubCluster } from './hub.ts';
import { RedisServer } from './redis-server.ts';
import { suiteFixture } from './suite-fixture.ts';

/** What `useRedisHubs` gives a describe block. */
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
  return suiteFixture(
    'useRedisHubs',
    async () => {
      const redis = await RedisServer.start();
      const cluster = await startRedisHubs(redis.url, { count, keyPrefix });
      return { redis, cluster, admin: new Redis(redis.url) };
    },
    async ({ redis, cluster, admin }) => {
      admin.disconnect();
      await cluster.close();
      await redis.stop();
    },
  );
}
