import { describe, expect } from 'vitest';
import type { Duplex } from 'node:stream';
import type { ServerMessage } from '../../shared/protocol.ts';
import type { RedisHubCluster, TestHub } from '../helpers/hub.ts';
import { range, RawHubClient } from '../helpers/raw-hub-client.ts';
import { storeEngines } from '../helpers/engines.ts';
import { test } from '../helpers/fixtures.ts';

const note = (n: number) => ({ type: 'test/note', data: { n } });
const engines = storeEngines('ackfirst:').map((engine) => ({
  name: engine.name,
  it: test.extend('engine', { scope: 'file' }, engine),
}));

/** Index in `messages` of the ack of the append that committed `seq`, and of the events frame that carried it. */
function positions(
  messages: readonly ServerMessage[],
  sessionId: string,
  seq: number,
): { ack: number; events: number } {
  const ack = messages.findIndex(
    (message) =>
      message.type === 'ack' && message.sessionId === sessionId && message.firstSeq <= seq && seq <= message.lastSeq,
  );
  const events = messages.findIndex(
    (message) =>
      message.type === 'events' && message.sessionId === sessionId && message.events.some((event) => event.seq === seq),
  );
  return { ack, events };
}

async function subscribeLive(client: RawHubClient, sessionId: string): Promise<void> {
  const from = client.messages.length;
  await client.request({ type: 'subscribe', sessionId });
  await client.waitFor((message) => message.type === 'live' && message.sessionId === sessionId, { from });
}

/**
 * The writer's ack goes out before the node fans its events out to the local subscribers (the fan-out runs after
 * the acks are written), so a writer subscribed to its own session on the same connection, where frames keep
 * their order, always reads the ack of an append before the events frame that carries it. Ordering, not timings.
 */
describe.each(engines)('hub ($name): the ack never waits for the local fan-out', ({ it }) => {
  let hub: TestHub;
  it.beforeAll(({ engineHub }) => {
    hub = engineHub.hub;
  });

  it('sends each ack before the live events it committed, with many subscribers and one that does not read', async () => {
    const sessionId = 'ack-first';
    const writer = await RawHubClient.connect(hub.wsUrl);
    const subscribers = await Promise.all(range(1, 50).map(() => RawHubClient.connect(hub.wsUrl)));
    for (const subscriber of subscribers) await subscribeLive(subscriber, sessionId);
    // One subscriber stops reading: its socket fills up, and the node's writes to it back up.
    const stalled = await RawHubClient.connect(hub.wsUrl);
    await subscribeLive(stalled, sessionId);
    (stalled.ws as unknown as { _socket: Duplex })._socket.pause();
    await subscribeLive(writer, sessionId);

    // Pipelined appends: some commit alone, some queue up behind a commit in flight and commit as a group.
    const acks = await Promise.all(
      range(0, 29).map((n) => writer.request({ type: 'append', sessionId, events: [note(n), note(n)] })),
    );
    expect(acks.every((ack) => ack.type === 'ack')).toBe(true);
    await writer.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 59));
    for (const seq of range(0, 59)) {
      const { ack, events } = positions(writer.messages, sessionId, seq);
      expect(ack).toBeGreaterThanOrEqual(0);
      expect(events).toBeGreaterThan(ack);
    }
    // Every reading subscriber (and the writer) gets the log once, in order.
    for (const client of [writer, ...subscribers]) {
      await client.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 59));
      expect(client.seqs(sessionId)).toEqual(range(0, 59));
    }
    (stalled.ws as unknown as { _socket: Duplex })._socket.resume();
    await stalled.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 59));
    expect(stalled.seqs(sessionId)).toEqual(range(0, 59));
    await Promise.all([writer, stalled, ...subscribers].map((client) => client.close()));
  });
});

/** Two nodes writing one session: own commits and the other node's notices interleave, in seq order, once each. */
const onTwoNodes = test.extend('keyPrefix', { scope: 'file' }, 'ackfirst2:');

describe('hub (redis, two nodes): own commits and other nodes’ batches reach local subscribers in order', () => {
  let cluster: RedisHubCluster;
  onTwoNodes.beforeAll(({ redisHubs }) => {
    cluster = redisHubs.cluster;
  });

  onTwoNodes(
    'delivers every event once and in order on both nodes, each writer’s ack before its own events',
    async () => {
      const sessionId = 'two-writers';
      const [a, b] = cluster.nodes;
      const writers = await Promise.all([RawHubClient.connect(a!.wsUrl), RawHubClient.connect(b!.wsUrl)]);
      const readers = await Promise.all([a, b, a, b].map((node) => RawHubClient.connect(node!.wsUrl)));
      for (const client of [...writers, ...readers]) await subscribeLive(client, sessionId);

      const rounds = range(0, 19);
      await Promise.all(
        writers.map((writer, w) =>
          Promise.all(rounds.map((n) => writer.request({ type: 'append', sessionId, events: [note(w * 100 + n)] }))),
        ),
      );
      const last = 2 * rounds.length - 1;
      for (const client of [...writers, ...readers]) {
        await client.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === last));
        expect(client.seqs(sessionId)).toEqual(range(0, last));
      }
      for (const writer of writers) {
        for (const ack of writer.ofType('ack')) {
          const { ack: ackAt, events } = positions(writer.messages, sessionId, ack.firstSeq);
          expect(events).toBeGreaterThan(ackAt);
        }
      }
      await Promise.all([...writers, ...readers].map((client) => client.close()));
    },
  );
});
