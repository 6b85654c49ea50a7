import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PresenceEntry } from '../../server/store/presence-store.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { RedisCluster } from '../helpers/redis-cluster.ts';
import { slotOf } from './cluster-hubs.ts';

const entry = (id: string, since: number): PresenceEntry => ({ id, subject: 'tester', node: 'n', since });

describe('presence on a Redis Cluster', () => {
  let cluster: RedisCluster;
  let store: RedisStore;
  beforeAll(async () => {
    cluster = await RedisCluster.start();
    store = await RedisStore.open({ cluster: cluster.urls, keyPrefix: 'pc:' });
  });
  afterAll(async () => {
    await store?.close();
    await cluster?.stop();
  });

  it('keeps each session’s watchers on the session’s own shard, for sessions on every shard', async () => {
    const sessionIds = Array.from({ length: 12 }, (_, index) => `p/${index}`);
    const masters = (await cluster.topology()).filter((node) => node.role === 'master');
    const shards = new Set<string>();
    for (const sessionId of sessionIds) {
      const slot = await slotOf(cluster, store.keys(sessionId).log);
      shards.add(masters.find((master) => master.slots.includes(slot))!.id);
    }
    expect(shards.size).toBe(3);
    for (const [index, sessionId] of sessionIds.entries()) {
      await store.presence.refresh(sessionId, [entry(`w${index}/a`, 1), entry(`w${index}/b`, 2)], 60_000);
    }
    for (const [index, sessionId] of sessionIds.entries()) {
      await store.presence.remove(sessionId, [`w${index}/a`]);
      expect((await store.presence.list(sessionId)).map((watcher) => watcher.id)).toEqual([`w${index}/b`]);
    }
  });
});
