import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubClient, HubClientError } from '../../client/index.ts';
import type { SessionEvent } from '../../client/index.ts';
import { deriveMessages } from '../../shared/index.ts';
import type { EventStore } from '../../server/index.ts';
import { memoryStore, startNode, type Node } from './hubs.ts';
import { untilSeq } from './support.ts';

const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });

describe('subscribe: catch-up, live, late joiner', () => {
  let store: EventStore;
  let node: Node;
  const clients: HubClient[] = [];
  const client = (): HubClient => {
    const created = new HubClient({ url: node.wsUrl });
    clients.push(created);
    return created;
  };

  beforeAll(async () => {
    store = memoryStore();
    node = await startNode(store);
  });
  afterAll(async () => {
    for (const created of clients) created.close();
    await node.hub.close();
    await store.close();
  });

  it('catches up from seq 0, goes live, and derives the same messages as deriveMessages', async () => {
    const writer = client();
    await writer.append('live/1', [user('a'), user('b')]);
    const subscription = client().subscribe('live/1');
    const seen: SessionEvent[] = [];
    subscription.on('event', (event) => seen.push(event));
    await subscription.whenLive();
    expect(subscription.lastSeq).toBe(1);
    const committed = await writer.append('live/1', [user('c'), { type: 'x/extension', data: { n: 1 } }]);
    expect(committed.map((event) => event.seq)).toEqual([2, 3]);
    await untilSeq(subscription, 3);
    expect(seen.map((event) => event.seq)).toEqual([0, 1, 2, 3]);
    expect(subscription.events).toEqual(seen);
    expect(subscription.messages).toEqual(deriveMessages(subscription.events));
    expect(subscription.messages).toHaveLength(3);
  });

  it('a late joiner from seq 0 ends with the exact log; fromSeq > 0 delivers events but derives nothing', async () => {
    const writer = client();
    for (let index = 0; index < 5; index++) await writer.append('live/2', user(`m${index}`));
    const early = client().subscribe('live/2');
    await early.whenLive();
    const late = client().subscribe('live/2');
    const partial = client().subscribe('live/2', { fromSeq: 3 });
    await Promise.all([late.whenLive(), partial.whenLive()]);
    expect(late.events).toEqual(early.events);
    expect(late.messages).toEqual(deriveMessages(early.events));
    expect(partial.events.map((event) => event.seq)).toEqual([3, 4]);
    expect(partial.messagesComplete).toBe(false);
    expect(partial.messages).toEqual([]);
  });

  it('the async iterator yields every event once, in order, and ends on close', async () => {
    const writer = client();
    await writer.append('live/3', user('first'));
    const subscription = client().subscribe('live/3');
    const seqs: number[] = [];
    const consumer = (async () => {
      for await (const event of subscription) {
        seqs.push(event.seq);
        if (event.seq === 2) subscription.close();
      }
    })();
    await subscription.whenLive();
    await writer.append('live/3', [user('second'), user('third')]);
    await consumer;
    expect(seqs).toEqual([0, 1, 2]);
  });

  it('subscribing beyond the head + 1 fails with SEQ_OUT_OF_RANGE and closes the subscription', async () => {
    const subscription = client().subscribe('live/empty', { fromSeq: 5 });
    const errors: HubClientError[] = [];
    subscription.on('error', (error) => errors.push(error));
    await expect(subscription.whenLive()).rejects.toMatchObject({ code: 'SEQ_OUT_OF_RANGE' });
    expect(subscription.state).toBe('closed');
    expect(errors.map((error) => error.code)).toEqual(['SEQ_OUT_OF_RANGE']);
    // Iterating it afterwards reports why it ended, instead of ending as if it had been closed on purpose.
    const iterate = async (): Promise<void> => {
      for await (const event of subscription) expect(event).toBeUndefined();
    };
    await expect(iterate()).rejects.toMatchObject({ code: 'SEQ_OUT_OF_RANGE' });
  });

  it('one subscription per session per client', () => {
    const shared = client();
    shared.subscribe('live/once');
    expect(() => shared.subscribe('live/once')).toThrow(HubClientError);
  });
});
