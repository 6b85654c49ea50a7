import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { RedisCluster } from '../helpers/redis-cluster.ts';
import { slotOf } from './cluster-hubs.ts';

const drafts = (label: string) => [{ type: 'test/event', data: { label } }];

describe('a Redis Cluster that loses a whole shard (master and replica): CLUSTERDOWN', () => {
  let cluster: RedisCluster;
  let store: RedisStore;
  beforeAll(async () => {
    cluster = await RedisCluster.start();
    store = await RedisStore.open({ cluster: cluster.urls, keyPrefix: 'down:', onError: () => undefined });
  });
  afterAll(async () => {
    await store?.close();
    await cluster?.stop();
  });

  it('answers STORE_UNAVAILABLE writing nothing, and recovers with the shard', async () => {
    const sessionIds = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const epochs = new Map<string, string>();
    for (const sessionId of sessionIds) {
      const result = await store.commit({ sessionId, expectedSeq: 0, events: drafts('before') });
      epochs.set(sessionId, result.epoch);
    }
    const lost = await cluster.masterOf(await slotOf(cluster, store.keys('a').log));
    const onLostShard = new Set<string>();
    for (const sessionId of sessionIds) {
      if (lost.slots.includes(await slotOf(cluster, store.keys(sessionId).log))) onLostShard.add(sessionId);
    }
    expect(onLostShard.size).toBeLessThan(sessionIds.length);
    const replicas = await cluster.replicasOf(lost);
    for (const server of [lost.server, ...replicas]) await server.kill();
    await expect
      .poll(
        () =>
          cluster.command(
            cluster.servers.find((server) => server.running)!,
            'CLUSTER',
            'INFO',
          ),
        {
          timeout: 15_000,
        },
      )
      .toMatch(/cluster_state:fail/);

    // Every session, on the lost shard or not: the cluster refuses service while a slot has no master.
    for (const sessionId of sessionIds) {
      const refusal = store.commit({ sessionId, expectedSeq: 1, events: drafts('down') });
      await expect(refusal).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      // A session of a living shard is refused by the cluster itself (retried, then given up).
      if (!onLostShard.has(sessionId)) await expect(refusal).rejects.toThrow(/CLUSTERDOWN/);
    }

    // nodes.conf brings them back into the cluster; without persistence, the shard's data is gone.
    for (const server of [lost.server, ...replicas]) await server.restart();
    await cluster.waitUntilHealthy(30_000);
    for (const sessionId of sessionIds) {
      const head = await store.head(sessionId);
      if (onLostShard.has(sessionId)) {
        expect(head.headSeq).toBe(-1); // lost with the shard: a new epoch, so clients reset
        expect(head.epoch).not.toBe(epochs.get(sessionId));
      } else {
        expect(head).toEqual({ epoch: epochs.get(sessionId), headSeq: 0 }); // nothing refused was written
      }
      const expectedSeq = head.headSeq + 1;
      await expect
        .poll(async () => (await store.commit({ sessionId, expectedSeq, events: drafts('after') })).status, {
          timeout: 15_000,
          interval: 200,
        })
        .toBe('committed');
    }
  });
});
