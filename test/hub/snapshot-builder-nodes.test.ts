// Snapshot triggers on several hub nodes (#28): each trigger is decided from the session (its seqs, its byte count in
// the store, its turn ends), not from what one node committed, and each snapshot is built once across the nodes.
import { randomUUID } from 'node:crypto';
import { describe, expect, vi } from 'vitest';
import { deriveMessages, MessageProjector } from '../../shared/index.ts';
import type { SnapshotRead } from '../../server/store/snapshot-store.ts';
import { startRedisHubs, type RedisHubCluster } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';
import { test as it } from '../helpers/fixtures.ts';

const WAIT = { timeout: 10_000, interval: 10 };
const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });
/** Events every 10 seqs, bytes every 4,000, turn ends. */
const policy = { everyEvents: 10, everyBytes: 4000, atTurnEnd: true };

/** Two hub nodes on the file's Redis (own key prefix) and a raw client on each. */
async function twoNodes(redisUrl: string) {
  const cluster = await startRedisHubs(redisUrl, {
    keyPrefix: `nodes-${randomUUID().slice(0, 8)}:`,
    config: { snapshots: policy },
  });
  const clients = await Promise.all(cluster.nodes.map((node) => RawHubClient.connect(node.wsUrl)));
  return { cluster, clients };
}

/** Appends `events` one append each, alternating between the clients (so each node commits every other one). */
async function alternate(
  clients: readonly RawHubClient[],
  sessionId: string,
  events: readonly object[],
): Promise<void> {
  for (const [index, event] of events.entries()) {
    const ack = await clients[index % clients.length]!.request({ type: 'append', sessionId, events: [event] });
    expect(ack).toMatchObject({ type: 'ack', firstSeq: index });
  }
}

async function foundSnapshot(cluster: RedisHubCluster, sessionId: string, atLeast: number) {
  let read: SnapshotRead | undefined;
  await vi.waitFor(async () => {
    read = await cluster.stores[1]!.snapshots.get(sessionId);
    expect(read.status === 'found' && read.snapshot.seq >= atLeast).toBe(true);
  }, WAIT);
  if (read?.status !== 'found') throw new Error('unreachable');
  const log = await cluster.stores[0]!.read(sessionId, 0, read.snapshot.seq + 1);
  expect(MessageProjector.fromState(read.snapshot.state).messages).toEqual(deriveMessages(log));
  return read.snapshot;
}

/** Builds by result, summed over the nodes (read after the nodes closed: no build is running any more). */
async function builds(cluster: RedisHubCluster): Promise<Record<string, number>> {
  const sums: Record<string, number> = {};
  for (const node of cluster.nodes) {
    for (const { labels, value } of (await node.hub.metrics.snapshotBuilds.get()).values) {
      const result = String(labels['result']);
      sums[result] = (sums[result] ?? 0) + value;
    }
  }
  return sums;
}

describe('snapshot triggers across hub nodes (two nodes, one Redis)', () => {
  it('the event trigger fires at seq 9 though each node committed only 9 of the 18 events; built once', async ({
    redis,
  }) => {
    const { cluster, clients } = await twoNodes(redis.url);
    try {
      await alternate(
        clients,
        's',
        Array.from({ length: 18 }, (_, index) => user(`m${index}`)),
      );
      const snapshot = await foundSnapshot(cluster, 's', 9);
      expect(snapshot.seq).toBe(9);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await cluster.close();
    }
    // Closing waited for every build: one, on the node that committed seq 9; the other node built nothing.
    expect(await builds(cluster)).toEqual({ written: 1 });
  });

  it('the byte trigger counts the bytes every node committed (in the store): 8 × ~700 bytes, 4 per node', async ({
    redis,
  }) => {
    const { cluster, clients } = await twoNodes(redis.url);
    try {
      // ~700 bytes each: 2,800 bytes per node (under 4,000 on either), 5,600 for the session; 8 events: no event trigger.
      await alternate(
        clients,
        'b',
        Array.from({ length: 8 }, (_, index) => user(`${index} ${'y'.repeat(650)}`)),
      );
      const snapshot = await foundSnapshot(cluster, 'b', 4);
      expect(snapshot.seq).toBeLessThan(8);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await cluster.close();
    }
    expect((await builds(cluster))['written']).toBeGreaterThanOrEqual(1);
  });

  it('a turn ended on the other node than the one that started it triggers there', async ({ redis }) => {
    const { cluster, clients } = await twoNodes(redis.url);
    try {
      await clients[0]!.request({
        type: 'append',
        sessionId: 't',
        events: [{ type: 'turn/start', data: { turn: 1 } }, user('hi')],
      });
      await clients[1]!.request({
        type: 'append',
        sessionId: 't',
        events: [{ type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } }],
      });
      expect((await foundSnapshot(cluster, 't', 2)).seq).toBe(2);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await cluster.close();
    }
    const written = await Promise.all(cluster.nodes.map((node) => node.hub.metrics.snapshotBuilds.get()));
    expect(
      written.map((metric) => metric.values.find((value) => value.labels['result'] === 'written')?.value ?? 0),
    ).toEqual([0, 1]);
  });
});
