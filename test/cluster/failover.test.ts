import { afterAll, describe, expect, it } from 'vitest';
import { HubClient, type Subscription } from '../../client/index.ts';
import { encodeMsgpackValue } from '../../shared/codec.ts';
import type { EventStore } from '../../server/store/event-store.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { RedisSentinelSetup } from '../helpers/redis-sentinel.ts';
import { record, untilSeq } from '../client/support.ts';
import { clusterTest, slotOf } from './cluster-hubs.ts';

const note = (n: number) => ({ type: 'test/note', data: { n } });

/** Appends one event at a time through the SDK (which retries STORE_UNAVAILABLE with the same key) until stopped. */
function startWriter(client: HubClient, sessionId: string) {
  let acked = 0;
  let stopped = false;
  const done = (async () => {
    for (let n = 0; !stopped; n++) {
      await client.append(sessionId, note(n));
      acked++;
    }
  })();
  return {
    acked: () => acked,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

/**
 * A busy session's Redis master dies mid-stream and its replica takes over: appends resume once it has, and every
 * subscriber ends with exactly the store's log (a subscriber that saw writes the promoted replica never got is
 * reset and rebuilt, never left with them).
 */
async function killMasterMidStream(options: {
  readonly nodes: readonly TestHub[];
  readonly store: EventStore;
  readonly sessionId: string;
  readonly killMaster: () => Promise<void>;
}): Promise<void> {
  const { nodes, store, sessionId } = options;
  const clients = nodes.map((node) => new HubClient({ url: node.wsUrl }));
  try {
    const subscriptions: Subscription[] = clients.map((client) => client.subscribe(sessionId));
    const resets = subscriptions.map((subscription) => record((listener) => subscription.on('reset', listener)));
    const writer = startWriter(clients[0]!, sessionId);
    await expect.poll(writer.acked, { timeout: 10_000, interval: 10 }).toBeGreaterThan(30);
    await options.killMaster();
    const killedAt = writer.acked();
    // Appends resume once the replica has taken over.
    await expect.poll(writer.acked, { timeout: 30_000, interval: 20 }).toBeGreaterThan(killedAt + 30);
    await writer.stop();

    // This store's connection may still point at the dead master for a moment (ioredis reconnects it to the promoted
    // one): read until it answers.
    let log: Awaited<ReturnType<typeof store.read>> | undefined;
    await expect
      .poll(async () => (log = await store.read(sessionId, 0, 100_000).catch(() => undefined)) !== undefined, {
        timeout: 30_000,
        interval: 50,
      })
      .toBe(true);
    if (log === undefined) throw new Error('unreachable: the poll above waited for a log');
    const last = log.length - 1;
    expect(log.map((event) => event.seq)).toEqual(log.map((_, index) => index));
    const bytes = Buffer.from(encodeMsgpackValue(log));
    for (const [index, subscription] of subscriptions.entries()) {
      await untilSeq(subscription, last, 30_000);
      expect(Buffer.from(encodeMsgpackValue(subscription.events)).equals(bytes)).toBe(true);
      expect(resets[index]!.length).toBeLessThanOrEqual(1); // reset only if writes were lost
    }
    for (const node of nodes) expect((await fetch(`${node.url}/healthz`)).status).toBe(200);
  } finally {
    for (const client of clients) client.close();
  }
}

// Each block kills masters: each has its own cluster (its own extension).
const failoverCluster = clusterTest.extend('keyPrefix', { scope: 'file' }, 'fail:');
const lossyCluster = clusterTest.extend('keyPrefix', { scope: 'file' }, 'lost:');

describe('Redis Cluster failover: the master of a busy session is killed', () => {
  const it = failoverCluster;

  it('appends resume after the replica takes over; every subscriber ends equal to the store', async ({
    clusterHubs: fixture,
  }) => {
    const sessionId = 'busy';
    const slot = await slotOf(fixture.cluster, fixture.stores[0]!.keys(sessionId).log);
    await killMasterMidStream({
      nodes: fixture.nodes,
      store: fixture.stores[1]!,
      sessionId,
      killMaster: async () => (await fixture.cluster.masterOf(slot)).server.kill(),
    });
    // The replica was promoted: the slot has a running master again.
    expect((await fixture.cluster.masterOf(slot)).role).toBe('master');
  });
});

describe('Sentinel failover: the master is killed', () => {
  let setup: RedisSentinelSetup | undefined;
  const stores: RedisStore[] = [];
  const nodes: TestHub[] = [];
  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.close()));
    await Promise.all(stores.map((store) => store.close()));
    await setup?.stop();
  });

  it('follows the sentinels to the promoted replica; every subscriber ends equal to the store', async () => {
    setup = await RedisSentinelSetup.start();
    for (let index = 0; index < 2; index++) {
      const store = await RedisStore.open({
        sentinels: setup.sentinelList.split(','),
        sentinelName: setup.name,
        onError: () => undefined, // the killed master's connection errors, expected here
      });
      stores.push(store);
      nodes.push(await startHub({ nodeName: `sentinel-node-${index}`, store }));
    }
    const master = setup.master;
    await killMasterMidStream({
      nodes,
      store: stores[1]!,
      sessionId: 'busy',
      killMaster: () => master.kill(),
    });
    expect(await setup.currentMasterPort()).toBe(setup.replica.port);
  });
});

describe('Redis Cluster failover that loses acknowledged writes', () => {
  const it = lossyCluster;

  it('resets the subscribers that saw the lost events and rebuilds them from the promoted replica', async ({
    clusterHubs: fixture,
  }) => {
    const sessionId = 'tail';
    const slot = await slotOf(fixture.cluster, fixture.stores[0]!.keys(sessionId).log);
    const master = await fixture.cluster.masterOf(slot);
    const [replica] = await fixture.cluster.replicasOf(master);
    const clients = fixture.nodes.map((node) => new HubClient({ url: node.wsUrl }));
    try {
      const subscriptions = clients.map((client) => client.subscribe(sessionId));
      const resets = subscriptions.map((subscription) => record((listener) => subscription.on('reset', listener)));
      for (let n = 0; n < 10; n++) await clients[0]!.append(sessionId, note(n));
      const replicaView = fixture.cluster.connect(replica!);
      await replicaView.call('READONLY');
      const log = fixture.stores[0]!.keys(sessionId).log;
      await expect.poll(() => replicaView.xlen(log), { timeout: 10_000, interval: 20 }).toBe(10);
      replicaView.disconnect();

      // The replica misses what follows: frozen, and its link dropped by the master (nothing left in flight).
      replica!.pause();
      await fixture.cluster.command(master.server, 'CLIENT', 'KILL', 'TYPE', 'replica');
      for (let n = 10; n < 15; n++) await clients[0]!.append(sessionId, note(n));
      await Promise.all(subscriptions.map((subscription) => untilSeq(subscription, 14)));
      await master.server.kill();
      replica!.resume(); // and is promoted without seqs 10..14

      await expect.poll(async () => (await fixture.cluster.masterOf(slot)).server, { timeout: 30_000 }).toBe(replica);
      const resumed = await clients[0]!.append(sessionId, note(100));
      expect(resumed[0]!.seq).toBe(10);
      // Node 1's cluster client may not have seen the promotion yet (its link to the dead master reads "Connection is
      // closed" until ioredis refreshes the slots): read until it answers.
      const readStored = () => fixture.stores[1]!.read(sessionId, 0, 1000).catch(() => undefined);
      await expect
        .poll(async () => (await readStored())?.map((event) => (event.data as { n: number }).n), { timeout: 30_000 })
        .toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100]);
      const stored = (await readStored())!;
      const bytes = Buffer.from(encodeMsgpackValue(stored));
      for (const [index, subscription] of subscriptions.entries()) {
        await expect
          .poll(() => Buffer.from(encodeMsgpackValue(subscription.events)).equals(bytes), { timeout: 30_000 })
          .toBe(true);
        expect(resets[index]!.length).toBe(1);
      }
    } finally {
      for (const client of clients) client.close();
    }
  });
});
