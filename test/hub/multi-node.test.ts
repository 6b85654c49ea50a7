import { describe, expect } from 'vitest';
import type { RedisStore } from '../../server/store/redis/redis-store.ts';
import { test } from '../helpers/fixtures.ts';
import type { TestHub } from '../helpers/hub.ts';
import { range, RawHubClient } from '../helpers/raw-hub-client.ts';

const note = (writer: number, n: number) => ({ type: 'test/note', data: { writer, n } });
const it = test.extend('keyPrefix', { scope: 'file' }, 'mn:');

describe('hub: two nodes on one Redis', () => {
  let nodes: readonly TestHub[];
  let stores: readonly RedisStore[];

  it.beforeAll(({ redisHubs }) => {
    ({ nodes, stores } = redisHubs.cluster);
  });

  it('delivers events appended through node A to subscribers on node B, in order', async () => {
    const [a, b] = nodes as [TestHub, TestHub];
    const writer = await RawHubClient.connect(a.wsUrl);
    const readers = await Promise.all([RawHubClient.connect(b.wsUrl), RawHubClient.connect(b.wsUrl)]);
    for (const reader of readers) {
      await reader.request({ type: 'subscribe', sessionId: 'ab' });
      await reader.waitFor((message) => message.type === 'live');
    }
    for (let n = 0; n < 30; n++) {
      await writer.request({ type: 'append', sessionId: 'ab', events: [note(0, n), note(0, n + 100)] });
    }
    for (const reader of readers) {
      await reader.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 59));
      expect(reader.seqs('ab')).toEqual(range(0, 59));
      expect(reader.events('ab').map((event) => (event.data as { n: number }).n)).toEqual(
        range(0, 29).flatMap((n) => [n, n + 100]),
      );
      await reader.close();
    }
    await writer.close();
  });

  it('keeps seqs contiguous with concurrent writers through both nodes: nothing lost, nothing twice', async () => {
    const sessionId = 'concurrent';
    const watchers = await Promise.all(nodes.map((node) => RawHubClient.connect(node.wsUrl)));
    for (const watcher of watchers) await watcher.request({ type: 'subscribe', sessionId });
    const writers = await Promise.all(range(0, 3).map((index) => RawHubClient.connect(nodes[index % 2]!.wsUrl)));
    const perWriter = 25;
    await Promise.all(
      writers.map(async (writer, index) => {
        for (let n = 0; n < perWriter; n++) {
          const ack = await writer.request({ type: 'append', sessionId, events: [note(index, n)] });
          expect(ack).toMatchObject({ type: 'ack' });
        }
      }),
    );
    const total = writers.length * perWriter;
    const stored = await stores[0]!.read(sessionId, 0, 1000);
    expect(stored.map((event) => event.seq)).toEqual(range(0, total - 1));
    const tags = stored.map((event) => JSON.stringify(event.data)).sort();
    const expected = range(0, writers.length - 1)
      .flatMap((writer) => range(0, perWriter - 1).map((n) => JSON.stringify(note(writer, n).data)))
      .sort();
    expect(tags).toEqual(expected);
    for (const watcher of watchers) {
      await watcher.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === total - 1));
      expect(watcher.seqs(sessionId)).toEqual(range(0, total - 1));
      expect(watcher.events(sessionId)).toEqual(stored);
    }
    await Promise.all([...writers, ...watchers].map((client) => client.close()));
  });

  it('lets exactly one of two appends with the same expectedSeq win; the other gets SEQ_CONFLICT', async () => {
    const sessionId = 'expected-seq';
    const clients = await Promise.all(nodes.map((node) => RawHubClient.connect(node.wsUrl)));
    for (let round = 0; round < 5; round++) {
      const replies = await Promise.all(
        clients.map((client, index) =>
          client.request({ type: 'append', sessionId, events: [note(index, round)], expectedSeq: round }),
        ),
      );
      const acks = replies.filter((reply) => reply.type === 'ack');
      const conflicts = replies.filter((reply) => reply.type === 'error' && reply.code === 'SEQ_CONFLICT');
      expect(acks).toHaveLength(1);
      expect(acks[0]).toMatchObject({ firstSeq: round, lastSeq: round });
      expect(conflicts).toHaveLength(1);
      expect(conflicts[0]).toMatchObject({ details: { headSeq: round } });
    }
    expect((await stores[1]!.head(sessionId)).headSeq).toBe(4);
    await Promise.all(clients.map((client) => client.close()));
  });
});
