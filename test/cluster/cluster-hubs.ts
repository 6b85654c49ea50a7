import { Redis } from 'ioredis';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { RedisCluster } from '../helpers/redis-cluster.ts';
import { test } from '../helpers/fixtures.ts';

/** What the `clusterHubs` fixture gives a file. */
export interface ClusterHubsFixture {
  readonly cluster: RedisCluster;
  readonly nodes: readonly TestHub[];
  readonly stores: readonly RedisStore[];
  /** What the stores reported (connection trouble while a test kills nodes): kept, not printed. */
  readonly storeErrors: Error[];
}

/**
 * The fixtures of test/helpers/fixtures.ts and `clusterHubs`: a local Redis Cluster (3 masters + 3 replicas) and
 * `hubCount` hub nodes on it, each with its own `RedisStore` (keys under `keyPrefix`), started the first time a test
 * of the file names it, everything stopped after the file's last test. A block that kills nodes and needs a fresh
 * cluster uses its own extension (e.g. another `keyPrefix`).
 */
export const clusterTest = test.extend(
  'clusterHubs',
  { scope: 'file' },
  async ({ keyPrefix, hubCount }, { onCleanup }): Promise<ClusterHubsFixture> => {
    const cluster = await RedisCluster.start();
    const nodes: TestHub[] = [];
    const stores: RedisStore[] = [];
    const storeErrors: Error[] = [];
    try {
      for (let index = 0; index < hubCount; index++) {
        const onError = (error: Error): void => void storeErrors.push(error);
        const store = await RedisStore.open({ cluster: cluster.urls, keyPrefix, onError });
        stores.push(store);
        nodes.push(await startHub({ nodeName: `cluster-node-${index}`, store }));
      }
    } catch (error) {
      await stopAll({ cluster, nodes, stores, storeErrors });
      throw error;
    }
    const started = { cluster, nodes, stores, storeErrors };
    onCleanup(() => stopAll(started));
    return started;
  },
);

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
