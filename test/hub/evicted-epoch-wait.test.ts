import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ServerMessage } from '../../shared/protocol.ts';
import { createLogger } from '../../server/logger.ts';
import { HubMetrics } from '../../server/metrics.ts';
import { ChannelRegistry } from '../../server/fanout/channel-registry.ts';
import { NO_EPOCH, type SessionHead, type StoredPage } from '../../server/store/event-store.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { Subscription, type SubscriberSink } from '../../server/fanout/subscription.ts';
import { storeReadLimits } from '../../server/limits/store-reads.ts';

const reads = storeReadLimits({ catchUpPageSize: 100, maxFrameBytes: 1024 * 1024, maxEventBytes: 256 * 1024 });

/**
 * A session whose epoch key was evicted (docs/storage.md), as the Redis engine reads it: a head without an epoch
 * above an empty log, and pages that read as empty. Counts the catch-up reads from seq 0.
 */
class EvictedEpochStore extends MemoryStore {
  catchUpReads = 0;

  override async head(): Promise<SessionHead> {
    return { epoch: NO_EPOCH, headSeq: 4 };
  }

  override async readStoredPage(_sessionId: string, fromSeq: number): Promise<StoredPage> {
    if (fromSeq === 0) this.catchUpReads++;
    return { epoch: undefined, firstSeq: fromSeq, bodies: [], times: [] };
  }
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

// Issue 26, item 19: a subscriber of a session whose epoch key was evicted re-read the store (and made its channel
// re-read the head) every 100 ms until the next commit. It backs off now (shared/backoff.ts).
describe('a subscriber of a session whose epoch key is gone', () => {
  it('backs off while the store has nothing where the channel has events', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.spyOn(Math, 'random').mockReturnValue(0.999); // each delay at its bound: 100, 200, 400 … 5,000 ms
    const store = new EvictedEpochStore();
    const logger = createLogger('silent');
    const metrics = new HubMetrics('test_');
    const channels = new ChannelRegistry({
      store,
      logger,
      metrics,
      reads,
      onCommitted: () => undefined,
      onReset: () => undefined,
    });
    const messages: ServerMessage[] = [];
    const sink: SubscriberSink = {
      behind: false,
      closing: false,
      whenDrained: () => Promise.resolve(),
      send: (message) => messages.push(message),
      sendBatch: (batch) => messages.push(batch.message),
    };
    const subscription = new Subscription(
      { sessionId: 's', fromSeq: 0 },
      { sink, logger, metrics, reads, maxFrameBytes: 1024 * 1024, maxBufferedLiveEvents: 1000 },
    );
    const channel = await channels.acquire('s', subscription);
    await subscription.start(channel, { requestId: 1, sessionId: 's', fromSeq: 0, epoch: undefined });
    expect(messages[0]).toMatchObject({ type: 'subscribed', epoch: NO_EPOCH, headSeq: 4 });

    await vi.advanceTimersByTimeAsync(20_000);
    // At 100 ms a read: 200 reads. Backing off to 5 s: 100 + 200 + … + 3,200 + 5,000 + 5,000 < 20 s, 10 reads.
    expect(store.catchUpReads).toBeGreaterThan(1);
    expect(store.catchUpReads).toBeLessThanOrEqual(10);
    expect(subscription.state).toBe('catching-up');
    subscription.close();
    channels.release(channel, subscription);
  });
});
