import { Redis } from 'ioredis';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { RedisCluster } from '../helpers/redis-cluster.ts';
import { suiteFixture } from '../helpers/suite-fixture.ts';

/** What `useClusterHubs` gives a describe block. */
export interface ClusterHubsFixture {
  readonly cluster: RedisCluster;
  readonly nodes: readonly TestHub[];
  readonly stores: readonly RedisStore[];
  /** What the stores reported (connection trouble while a test kills nodes): kept, not printed. */
  readonly storeErrors: Error[];
}

/**
 * For one describe block: a local Redis Cluster (3 masters + 3 replicas) and `count` hub nodes on it, each with its
 * own `RedisStore` (keys under `keyPrefix`), started before the tests; everything stopped after them.
 */
export function useClusterHubs(keyPrefix: string, count = 2): ClusterHubsFixture {
  return suiteFixture(
    'useClusterHubs',
    async () => {
      const cluster = await RedisCluster.start();
      const nodes: TestHub[] = [];
      const stores: RedisStore[] = [];
      const storeErrors: Error[] = [];
      try {
        for (let index = 0; index < count; index++) {
          const onError = (error: Error): void => void storeErrors.push(error);
          const store = await RedisStore.open({ cluster: cluster.urls, keyPrefix, onError });
          stores.push(store);
          nodes.push(await startHub({ nodeName: `cluster-node-${index}`, store }));
        }
      } catch (error) {
        await stopAll({ cluster, nodes, stores, storeErrors });
        throw error;
      }
      return { cluster, nodes, stores, storeErrors };
    },
    stopAll,
  );
}

async function stopAll({ cluster, nodes, stores }: ClusterHubsFixture): Promise<void> {
  await Promise.all(nodes.map((node) => node.close()));
  await Promise.all(stores.map((store) => store.close()));
  await cluster.stop();
}

/** The hash slot of a key (asked of a cluster node: `CLUSTER KEYSLOT`). */
export async function slotOf(cluster: RedisCluster, key: string): Promise<number> {
  const redis = new Redis(cluster.urls[0]!, { maxRetriesPerRequest: 1 });
  try {
    return Number(await redis.call('CLUSTER', 'KEYSLOT', key));
  } finally {
    redis.disconnect();
  }
}
