import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreWatchHandlers } from '../../server/store/event-store.ts';
import { MemoryBackend } from '../../server/store/memory/memory-backend.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { range, RawHubClient } from '../helpers/raw-hub-client.ts';

/** A real MemoryStore whose watch loses notifications (as a pub/sub connection may): batches whose first seq is
 *  not a multiple of 4 never reach the watchers. */
class LossyStore extends MemoryStore {
  override watch(sessionId: string, handlers: StoreWatchHandlers): () => void {
    return super.watch(sessionId, {
      onCommitted: (batch) => {
        if (batch.events[0]!.seq % 4 === 0) handlers.onCommitted(batch);
      },
      onResync: () => handlers.onResync(),
    });
  }
}

/** Another node's commits reach this node's subscribers through store notifications (its own, from its pipeline). */
describe('hub: missed live notifications', () => {
  let writerHub: TestHub;
  let hub: TestHub;
  const backend = new MemoryBackend();
  const writerStore = new MemoryStore({ backend });
  const store = new LossyStore({ backend });
  beforeAll(async () => {
    writerHub = await startHub({ store: writerStore, nodeName: 'writer' });
    hub = await startHub({ store, nodeName: 'lossy' });
  });
  afterAll(async () => {
    await Promise.all([writerHub.close(), hub.close()]);
    await Promise.all([writerStore.close(), store.close()]);
  });

  it('are filled from the store: subscribers still get every seq once, in order', async () => {
    const sessionId = 'lossy';
    const writer = await RawHubClient.connect(writerHub.wsUrl);
    const watchers = await Promise.all([RawHubClient.connect(hub.wsUrl), RawHubClient.connect(hub.wsUrl)]);
    for (const watcher of watchers) {
      await watcher.request({ type: 'subscribe', sessionId });
      await watcher.waitFor((message) => message.type === 'live');
    }
    for (let n = 0; n < 40; n++) {
      await writer.request({ type: 'append', sessionId, events: [{ type: 'test/note', data: { n } }] });
    }
    for (const watcher of watchers) {
      await watcher.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 36));
      expect(watcher.seqs(sessionId)).toEqual(range(0, 36));
    }
    const gapFills = (await hub.hub.metrics.gapFills.get()).values[0]?.value ?? 0;
    expect(gapFills).toBeGreaterThan(0);
    await Promise.all([writer, ...watchers].map((client) => client.close()));
  });
});
