import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LiveBatch } from '../../server/fanout/live-batch.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { range, RawHubClient } from '../helpers/raw-hub-client.ts';

const note = (n: number) => ({ type: 'test/note', data: { n } });

describe('hub: fan-out on one node', () => {
  let hub: TestHub;
  const store = new MemoryStore();
  beforeAll(async () => {
    hub = await startHub({ store });
  });
  afterAll(async () => {
    await hub.close();
    await store.close();
  });

  const watched = async (): Promise<number> => (await hub.hub.metrics.watchedSessions.get()).values[0]?.value ?? 0;

  it('encodes a live batch once per format and shares the frame', () => {
    const batch = new LiveBatch('s', [{ seq: 0, time: 1, type: 'x/y', data: null }]);
    expect(batch.binary()).toBe(batch.binary());
    expect(batch.text()).toBe(batch.text());
    expect(batch.from(0)).toBe(batch);
    expect(batch.from(1)).toBeUndefined();
  });

  it('watches a session once for all its local subscribers and stops when the last one leaves', async () => {
    const sessionId = 'shared';
    const clients = await Promise.all(range(1, 3).map(() => RawHubClient.connect(hub.wsUrl)));
    for (const client of clients) {
      await client.request({ type: 'subscribe', sessionId });
      await client.waitFor((message) => message.type === 'live');
    }
    expect(await watched()).toBe(1);
    await clients[0]!.request({ type: 'append', sessionId, events: range(0, 4).map(note) });
    for (const client of clients) {
      await client.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 4));
      expect(client.seqs(sessionId)).toEqual(range(0, 4));
    }
    // Unsubscribe: a reply, no more events, and the watch goes away with the last subscriber.
    expect(await clients[0]!.request({ type: 'unsubscribe', sessionId })).toMatchObject({ type: 'unsubscribed' });
    expect(await clients[0]!.request({ type: 'unsubscribe', sessionId })).toMatchObject({ code: 'NOT_SUBSCRIBED' });
    await clients[1]!.request({ type: 'append', sessionId, events: [note(5)] });
    await clients[1]!.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 5));
    expect(clients[0]!.seqs(sessionId)).toEqual(range(0, 4));
    await clients[1]!.close();
    await clients[2]!.request({ type: 'unsubscribe', sessionId });
    // The server sees clients[1]'s close a moment after the client does.
    await vi.waitFor(async () => expect(await watched()).toBe(0));
    await Promise.all([clients[0]!.close(), clients[2]!.close()]);
  });

  it('refuses a second subscription to the same session on one connection', async () => {
    const client = await RawHubClient.connect(hub.wsUrl);
    expect(await client.request({ type: 'subscribe', sessionId: 'twice' })).toMatchObject({ type: 'subscribed' });
    expect(await client.request({ type: 'subscribe', sessionId: 'twice' })).toMatchObject({
      type: 'error',
      code: 'ALREADY_SUBSCRIBED',
      sessionId: 'twice',
    });
    await client.close();
  });

  it('answers a subscription under an old epoch with reset, then the log from seq 0, then live', async () => {
    const sessionId = 'epoch';
    const client = await RawHubClient.connect(hub.wsUrl);
    await client.request({ type: 'append', sessionId, events: range(0, 2).map(note) });
    const reply = await client.request({ type: 'subscribe', sessionId, fromSeq: 2, epoch: 'gone' });
    const epoch = (await store.head(sessionId)).epoch;
    expect(reply).toEqual({ type: 'subscribed', id: 3, sessionId, epoch, headSeq: 2 });
    await client.waitFor((message) => message.type === 'live');
    expect(client.messages.slice(3).map((message) => message.type)).toEqual(['reset', 'events', 'live']);
    expect(client.ofType('reset')[0]).toMatchObject({ sessionId, epoch });
    expect(client.seqs(sessionId)).toEqual([0, 1, 2]);
    await client.close();
  });

  it('continues from fromSeq when the epoch matches', async () => {
    const sessionId = 'epoch-ok';
    const client = await RawHubClient.connect(hub.wsUrl);
    await client.request({ type: 'append', sessionId, events: range(0, 2).map(note) });
    const { epoch } = await store.head(sessionId);
    await client.request({ type: 'subscribe', sessionId, fromSeq: 1, epoch });
    await client.waitFor((message) => message.type === 'live');
    expect(client.ofType('reset')).toEqual([]);
    expect(client.seqs(sessionId)).toEqual([1, 2]);
    await client.close();
  });
});
