// The first subscribe of a session after its slot moved to another master (issue: it answered STORE_UNAVAILABLE
// after the command timeout). The node's sharded subscriber still routes the session's channel to the old master
// (its slot map refreshes every 2 s, or on a MOVED): that master answers SSUBSCRIBE with MOVED, which ioredis 5.11
// turns into a slot map refresh without ever settling the command. The transport sends it again, once, when the map
// changed (server/store/redis/redis-pubsub.ts), so the first subscribe after a migration succeeds.
import { describe, expect } from 'vitest';
import { RawHubClient } from '../helpers/raw-hub-client.ts';
import { clusterTest, slotOf } from './cluster-hubs.ts';

const it = clusterTest.extend('keyPrefix', { scope: 'file' }, 'first-sub:');

describe("the first subscribe of a session right after its slot moved (the nodes' slot maps are stale)", () => {
  it('is answered subscribed on every node, and the log follows', async ({ clusterHubs: fixture }) => {
    const sessionId = 'moved-before-any-watch';
    const log = fixture.stores[0]!.keys(sessionId).log;
    const slot = await slotOf(fixture.cluster, log);
    const source = await fixture.cluster.masterOf(slot);
    const writer = await RawHubClient.connect(fixture.nodes[0]!.wsUrl);
    const appended = await writer.request({ type: 'append', sessionId, events: [{ type: 'test/note', data: {} }] });
    expect(appended.type).toBe('ack');
    const target = (await fixture.cluster.topology()).find((node) => node.role === 'master' && node.id !== source.id)!;
    await fixture.cluster.migrateSlot(slot, target);

    // No node watched the session before: each node's first SSUBSCRIBE of its channel goes to the old master.
    for (const node of fixture.nodes) {
      const watcher = await RawHubClient.connect(node.wsUrl);
      const answer = await watcher.request({ type: 'subscribe', sessionId });
      expect(answer).toMatchObject({ type: 'subscribed' });
      await watcher.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 0));
      await watcher.close();
    }
    await writer.close();
  });
});
