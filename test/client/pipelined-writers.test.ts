import { describe, expect, vi } from 'vitest';
import { HubClient } from '../../client/index.ts';
import type { SessionEvent } from '../../shared/index.ts';
import { test } from '../helpers/fixtures.ts';
import type { RedisHubCluster } from '../helpers/hub.ts';
import { range } from '../helpers/raw-hub-client.ts';

const WAIT = { timeout: 20_000, interval: 20 };
const it = test.extend('keyPrefix', { scope: 'file' }, 'pw:');

/**
 * Several SDK writers pipelining appends to ONE session through two hub nodes: group commits on each node race
 * for the head in Redis, conflict, re-validate and retry. Whatever the interleaving, every append commits exactly
 * once, each writer's appends keep their call order, and every subscriber sees the one log.
 */
describe('SDK: pipelined writers on two nodes, one session', () => {
  let cluster: RedisHubCluster;

  it.beforeAll(({ redisHubs }) => {
    cluster = redisHubs.cluster;
  });

  it('commits every append once, in each writer’s call order, and every subscriber sees the same log', async () => {
    const sessionId = 'pipelined';
    const [a, b] = cluster.nodes;
    const watchers = [new HubClient({ url: a!.wsUrl }), new HubClient({ url: b!.wsUrl })];
    const seen = watchers.map(() => [] as SessionEvent[]);
    const subscriptions = watchers.map((watcher, index) => {
      const subscription = watcher.subscribe(sessionId);
      subscription.on('event', (event) => void seen[index]!.push(event));
      return subscription;
    });
    const writers = range(0, 3).map((index) => new HubClient({ url: cluster.nodes[index % 2]!.wsUrl }));
    const perWriter = 40;
    const results = await Promise.all(
      writers.map((writer, w) =>
        Promise.all(range(0, perWriter - 1).map((n) => writer.append(sessionId, { type: 'test/w', data: { w, n } }))),
      ),
    );
    const total = writers.length * perWriter;
    const stored = await cluster.stores[0]!.read(sessionId, 0, 1000);
    expect(stored.map((event) => event.seq)).toEqual(range(0, total - 1));
    for (const [w, committed] of results.entries()) {
      // What each writer was told matches what is stored, and its appends are in call order.
      const seqs = committed.map(([event]) => event!.seq);
      expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
      for (const [n, [event]] of committed.entries()) expect(stored[event!.seq]!.data).toEqual({ w, n });
    }
    const counts = new Map<number, number>();
    for (const event of stored) {
      const { w } = event.data as { w: number };
      counts.set(w, (counts.get(w) ?? 0) + 1);
    }
    expect([...counts.values()]).toEqual(writers.map(() => perWriter));
    for (const events of seen) {
      await vi.waitFor(() => expect(events).toHaveLength(total), WAIT);
      expect(events).toEqual(stored);
    }
    for (const subscription of subscriptions) subscription.close();
    for (const client of [...writers, ...watchers]) client.close();
  });
});
