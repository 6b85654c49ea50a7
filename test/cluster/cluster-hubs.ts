import { Redis } from 'ioredis';
import { onTestFinished } from 'vitest';
import type { HubConfig } from '../../server/config.ts';
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

/** A hub node of a test on the fixture's cluster, on a `RedisStore` of its own. */
export interface ClusterHubNode {
  readonly store: RedisStore;
  readonly node: TestHub;
}

/**
 * One more hub node on `cluster` (keys under `keyPrefix`) with `config` (e.g. an archive), on a store of its own:
 * both stop when the test ends.
 */
export async function startClusterHub(
  cluster: RedisCluster,
  keyPrefix: string,
  config: Omit<HubConfig, 'store'> = {},
): Promise<ClusterHubNode> {
  const store = await RedisStore.open({ cluster: cluster.urls, keyPrefix });
  const node = await startHub({ ...config, store }).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  onTestFinished(async () => {
    await node.close();
    await store.close();
  });
  return { store, node };
}

/**
 * One session id per master of `cluster` (`<stem>-<n>`, the first n whose log's slot a master not yet covered
 * serves), so a test spreads its sessions over every master.
 */
export async function sessionsOnEveryMaster(cluster: RedisCluster, store: RedisStore, stem: string): Promise<string[]> {
  const masters = (await cluster.topology()).filter((node) => node.role === 'master');
  const chosen = new Map<string, string>();
  for (let n = 0; chosen.size < masters.length && n < 10_000; n++) {
    const sessionId = `${stem}-${n}`;
    const slot = await slotOf(cluster, store.keys(sessionId).log);
    const master = masters.find((node) => node.slots.includes(slot))!;
    if (!chosen.has(master.id)) chosen.set(master.id, sessionId);
  }
  return [...chosen.values()];
}
