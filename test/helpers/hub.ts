import { createHub, type Hub, type HubAddress } from '../../server/hub.ts';
import type { HubConfig } from '../../server/config.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';

/** A hub node started for a test on 127.0.0.1, port 0. */
export interface TestHub extends HubAddress {
  readonly hub: Hub;
  close(): Promise<void>;
}

/**
 * Start a real hub on a free loopback port with the given store (and any other config). Logs are silent unless
 * LOG_LEVEL is set. The store is not closed by `close()`.
 */
export async function startHub(config: HubConfig): Promise<TestHub> {
  const hub = createHub({
    logLevel: process.env['LOG_LEVEL'] ?? 'silent',
    ...config,
    port: config.port ?? 0,
    host: config.host ?? '127.0.0.1',
  });
  const address = await hub.listen();
  return { ...address, hub, close: () => hub.close() };
}

/** Several hub nodes on one Redis, each with its own `RedisStore` (as separate processes would have). */
export interface RedisHubCluster {
  readonly nodes: readonly TestHub[];
  readonly stores: readonly RedisStore[];
  /** Close the hubs, then their stores (not the Redis server). */
  close(): Promise<void>;
}

/** Start `count` hub nodes (default 2) on the Redis at `redisUrl`, sharing `keyPrefix` (default `test:`). */
export async function startRedisHubs(
  redisUrl: string,
  options: { count?: number; keyPrefix?: string; config?: Omit<HubConfig, 'store'> } = {},
): Promise<RedisHubCluster> {
  const nodes: TestHub[] = [];
  const stores: RedisStore[] = [];
  for (let index = 0; index < (options.count ?? 2); index++) {
    const store = await RedisStore.open({ url: redisUrl, keyPrefix: options.keyPrefix ?? 'test:' });
    stores.push(store);
    nodes.push(await startHub({ nodeName: `node-${index}`, ...options.config, store }));
  }
  return {
    nodes,
    stores,
    close: async () => {
      await Promise.all(nodes.map((node) => node.close()));
      await Promise.all(stores.map((store) => store.close()));
    },
  };
}
