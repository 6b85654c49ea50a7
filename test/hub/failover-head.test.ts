import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreWatchHandlers } from '../../server/store/event-store.ts';
import { MemoryBackend } from '../../server/store/memory/memory-backend.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

/** A store whose notifications are held back until `release()`: its node's channels fall behind the log. */
class HeldNotificationsStore extends MemoryStore {
  readonly #held: (() => void)[] = [];
  #holding = true;

  override watch(sessionId: string, handlers: StoreWatchHandlers): () => void {
    return super.watch(sessionId, {
      onCommitted: (batch) => {
        if (this.#holding) this.#held.push(() => handlers.onCommitted(batch));
        else handlers.onCommitted(batch);
      },
      onResync: () => handlers.onResync(),
    });
  }

  release(): void {
    this.#holding = false;
    for (const deliver of this.#held.splice(0)) deliver();
  }
}

/** A client that moves from a node that is up to date to one whose channel is behind (review item 2). */
describe('hub: subscribing ahead of a node whose channel is behind', () => {
  const backend = new MemoryBackend();
  const storeA = new MemoryStore({ backend });
  const storeB = new HeldNotificationsStore({ backend });
  let nodeA: TestHub;
  let nodeB: TestHub;
  let watcherOnB: RawHubClient;
  let writer: RawHubClient;
  beforeAll(async () => {
    nodeA = await startHub({ store: storeA });
    nodeB = await startHub({ store: storeB });
    watcherOnB = await RawHubClient.connect(nodeB.wsUrl);
    writer = await RawHubClient.connect(nodeA.wsUrl);
  });
  afterAll(async () => {
    await Promise.all([watcherOnB.close(), writer.close()]);
    await Promise.all([nodeA.close(), nodeB.close()]);
    await Promise.all([storeA.close(), storeB.close()]);
  });

  it('announces subscribed.headSeq and live.headSeq at least at the true head, with no reset', async () => {
    // B's channel for the session exists (someone watches there) and stays at -1: notifications are held.
    await watcherOnB.request({ type: 'subscribe', sessionId: 'f', fromSeq: 0 });
    await watcherOnB.waitFor((message) => message.type === 'live');
    const events = Array.from({ length: 10 }, (_, index) => ({ type: 'test/n', data: { index } }));
    const ack = await writer.request({ type: 'append', sessionId: 'f', events });
    expect(ack).toMatchObject({ type: 'ack', lastSeq: 9 });
    const epoch = ack.type === 'ack' ? ack.epoch : '';

    // The client held seqs 0..9 on node A and resumes on B.
    const moved = await RawHubClient.connect(nodeB.wsUrl);
    try {
      const subscribed = await moved.request({ type: 'subscribe', sessionId: 'f', fromSeq: 10, epoch });
      expect(subscribed).toMatchObject({ type: 'subscribed', epoch });
      expect(subscribed.type === 'subscribed' && subscribed.headSeq).toBeGreaterThanOrEqual(9);
      const live = await moved.waitFor((message) => message.type === 'live');
      expect(live.type === 'live' && live.headSeq).toBeGreaterThanOrEqual(9);
      storeB.release();
      await watcherOnB.waitFor((message) => message.type === 'events' && message.events.at(-1)?.seq === 9);
      const more = await writer.request({ type: 'append', sessionId: 'f', events: [{ type: 'test/n', data: {} }] });
      expect(more).toMatchObject({ type: 'ack', firstSeq: 10 });
      await moved.waitFor((message) => message.type === 'events' && message.events.at(-1)?.seq === 10);
      expect(moved.seqs('f')).toEqual([10]);
      expect(moved.ofType('reset')).toEqual([]);
    } finally {
      await moved.close();
    }
  });
});
