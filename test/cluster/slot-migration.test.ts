import { describe, expect, it } from 'vitest';
import type { ServerMessage } from '../../shared/protocol.ts';
import { range, RawHubClient } from '../helpers/raw-hub-client.ts';
import { slotOf, useClusterHubs } from './cluster-hubs.ts';

const note = (n: number) => ({ type: 'test/note', data: { n } });

/** Appends one event at a time to `sessionId` until stopped; every answer is kept. */
function startWriter(client: RawHubClient, sessionId: string) {
  const answers: ServerMessage[] = [];
  let stopped = false;
  const done = (async () => {
    for (let n = 0; !stopped; n++) answers.push(await client.request({ type: 'append', sessionId, events: [note(n)] }));
  })();
  return {
    answers,
    acked: () => answers.filter((answer) => answer.type === 'ack').length,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

describe('a busy session whose slot moves to another master (CLUSTER SETSLOT … MIGRATING/IMPORTING, MIGRATE)', () => {
  const fixture = useClusterHubs('mig:');

  it('refuses and loses no append, resets no watcher, and the watchers on both nodes keep up', async () => {
    const [a, b] = fixture.nodes;
    const sessionId = 'busy';
    const slot = await slotOf(fixture.cluster, fixture.stores[0]!.keys(sessionId).log);
    const watchers = [await RawHubClient.connect(a!.wsUrl), await RawHubClient.connect(b!.wsUrl)];
    for (const watcher of watchers) await watcher.request({ type: 'subscribe', sessionId });
    const source = await fixture.cluster.masterOf(slot);
    // The notifications really are sharded: the session's channel is subscribed on its master, by both nodes.
    const channel = fixture.stores[0]!.keys(sessionId).channel;
    expect(await fixture.cluster.command(source.server, 'PUBSUB', 'SHARDNUMSUB', channel)).toEqual([channel, 2]);

    const writerClient = await RawHubClient.connect(a!.wsUrl);
    const writer = startWriter(writerClient, sessionId);
    await expect.poll(writer.acked, { timeout: 10_000, interval: 10 }).toBeGreaterThan(20);
    const target = (await fixture.cluster.topology()).find((node) => node.role === 'master' && node.id !== source.id)!;
    await fixture.cluster.migrateSlot(slot, target, async () => {
      // Half-moved: the keys are on the target, the slot still on the source (ASK redirections).
      const before = writer.acked();
      await expect.poll(writer.acked, { timeout: 10_000, interval: 10 }).toBeGreaterThan(before + 10);
    });
    const moved = writer.acked();
    await expect.poll(writer.acked, { timeout: 15_000, interval: 10 }).toBeGreaterThan(moved + 30);
    // Both nodes subscribed again, on the new master.
    await expect
      .poll(() => fixture.cluster.command(target.server, 'PUBSUB', 'SHARDNUMSUB', channel), { timeout: 15_000 })
      .toEqual([channel, 2]);
    const afterResubscribe = writer.acked();
    await expect.poll(writer.acked, { timeout: 10_000, interval: 10 }).toBeGreaterThan(afterResubscribe + 10);
    await writer.stop();
    await writerClient.close();

    expect(writer.answers.filter((answer) => answer.type !== 'ack')).toEqual([]);
    const count = writer.answers.length;
    const log = await fixture.stores[1]!.read(sessionId, 0, 100_000);
    expect(log.map((event) => (event.data as { n: number }).n)).toEqual(range(0, count - 1));
    for (const watcher of watchers) {
      await watcher.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === count - 1), {
        timeoutMs: 15_000,
      });
      expect(watcher.messages.filter((message) => message.type === 'reset')).toEqual([]);
      expect(watcher.seqs(sessionId)).toEqual(range(0, count - 1));
      await watcher.close();
    }
  });
});
