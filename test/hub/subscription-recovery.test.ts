import { describe, expect, it, vi } from 'vitest';
import type { SessionEvent } from '../../shared/index.ts';
import type { ServerMessage } from '../../shared/protocol.ts';
import { LiveBatch } from '../../server/fanout/live-batch.ts';
import { createLogger } from '../../server/logger.ts';
import { HubMetrics } from '../../server/metrics.ts';
import { ChannelRegistry } from '../../server/fanout/channel-registry.ts';
import type { StoredPage } from '../../server/store/event-store.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { Subscription, type SubscriberSink } from '../../server/fanout/subscription.ts';
import { storeReadLimits } from '../../server/limits/store-reads.ts';

const WAIT = { timeout: 10_000, interval: 10 };

/** A sink that records what a subscription sends, batches as plain `events` messages. */
function recordingSink(): SubscriberSink & { messages: ServerMessage[]; seqs(): number[] } {
  const messages: ServerMessage[] = [];
  return {
    messages,
    behind: false,
    whenDrained: () => Promise.resolve(),
    closing: false,
    send: (message) => messages.push(message),
    sendBatch: (batch) => messages.push(batch.message),
    seqs: () => messages.flatMap((message) => (message.type === 'events' ? message.events.map((e) => e.seq) : [])),
  };
}

function setup(store: MemoryStore, pageSize = 100) {
  const reads = storeReadLimits({ catchUpPageSize: pageSize, maxFrameBytes: 1024 * 1024, maxEventBytes: 256 * 1024 });
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
  const sink = recordingSink();
  const subscription = new Subscription(
    { sessionId: 's', fromSeq: 0 },
    { sink, logger, metrics, reads, maxFrameBytes: 1024 * 1024, maxBufferedLiveEvents: 1000 },
  );
  return { channels, sink, subscription };
}

async function commit(store: MemoryStore, sessionId: string, count: number): Promise<readonly SessionEvent[]> {
  const { headSeq } = await store.head(sessionId);
  const events = Array.from({ length: count }, (_, index) => ({ type: 'test/n', data: { index } }));
  const result = await store.commit({ sessionId, expectedSeq: headSeq + 1, events });
  if (result.status !== 'committed') throw new Error(result.status);
  return result.events;
}

describe('hub subscription: recovery', () => {
  it('drops batches buffered before a reset that arrives while starting (never sends old-epoch events)', async () => {
    const store = new MemoryStore();
    const old = await commit(store, 's', 6);
    await store.deleteSession('s');
    await commit(store, 's', 3);
    const { channels, sink, subscription } = setup(store);
    const channel = await channels.acquire('s', subscription);
    // What the channel handed the subscription before `start` ran: an old-epoch batch, then the reset.
    subscription.onBatch(new LiveBatch('s', old.slice(3)));
    subscription.onReset(channel.epoch, 'epoch changed');
    await subscription.start(channel, { requestId: 1, sessionId: 's', fromSeq: 0, epoch: undefined });
    await vi.waitFor(() => expect(subscription.state).toBe('live'), WAIT);
    expect(sink.seqs()).toEqual([0, 1, 2]);
    expect(sink.messages.at(-1)).toEqual({ type: 'live', sessionId: 's', headSeq: 2 });
    subscription.close();
    channels.closeAll();
  });

  it('retries a catch-up whose read came back misplaced instead of stopping silently', async () => {
    class MisplacedOnce extends MemoryStore {
      misplaced = 0;
      override async readStoredPage(sessionId: string, fromSeq: number, limit: number): Promise<StoredPage> {
        const page = await super.readStoredPage(sessionId, fromSeq, limit);
        if (this.misplaced > 0 || page.bodies.length < 2) return page;
        this.misplaced++;
        return { ...page, firstSeq: page.firstSeq + 1, bodies: page.bodies.slice(1), times: page.times.slice(1) };
      }
    }
    const store = new MisplacedOnce();
    await commit(store, 's', 4);
    const { channels, sink, subscription } = setup(store);
    const channel = await channels.acquire('s', subscription);
    await subscription.start(channel, { requestId: 1, sessionId: 's', fromSeq: 0, epoch: undefined });
    await vi.waitFor(() => expect(subscription.state).toBe('live'), WAIT);
    expect(store.misplaced).toBe(1);
    expect(sink.seqs()).toEqual([0, 1, 2, 3]);
    subscription.close();
    channels.closeAll();
  });

  it('never sends a catch-up page of another epoch: the channel resets the subscriber first', async () => {
    /** Rewrites the session under the first read; its notifications never arrive (the channel stays behind). */
    class RewrittenOnFirstRead extends MemoryStore {
      rewritten = false;
      override watch(sessionId: string): () => void {
        return super.watch(sessionId, { onCommitted: () => undefined, onResync: () => undefined });
      }
      override async readStoredPage(sessionId: string, fromSeq: number, limit: number): Promise<StoredPage> {
        if (!this.rewritten) {
          this.rewritten = true;
          await this.deleteSession(sessionId);
          await commit(this, sessionId, 5);
        }
        return super.readStoredPage(sessionId, fromSeq, limit);
      }
    }
    const store = new RewrittenOnFirstRead();
    await commit(store, 's', 3);
    const { channels, sink, subscription } = setup(store);
    const channel = await channels.acquire('s', subscription);
    const oldEpoch = channel.epoch;
    await subscription.start(channel, { requestId: 1, sessionId: 's', fromSeq: 0, epoch: undefined });
    await vi.waitFor(() => expect(sink.messages.some((message) => message.type === 'live')).toBe(true), WAIT);
    const types = sink.messages.map((message) => message.type);
    expect(types.slice(0, 2)).toEqual(['subscribed', 'reset']);
    expect(sink.messages[0]).toMatchObject({ epoch: oldEpoch });
    expect(sink.messages[1]).toMatchObject({ epoch: channel.epoch });
    expect(channel.epoch).not.toBe(oldEpoch);
    expect(sink.seqs()).toEqual([0, 1, 2, 3, 4]);
    subscription.close();
    channels.closeAll();
  });

  it('reads the page after a full one ahead, and still sends every seq once, in order', async () => {
    class Recording extends MemoryStore {
      readonly reads: number[] = [];
      override async readStoredPage(sessionId: string, fromSeq: number, limit: number): Promise<StoredPage> {
        this.reads.push(fromSeq);
        return super.readStoredPage(sessionId, fromSeq, limit);
      }
    }
    const store = new Recording();
    await commit(store, 's', 10);
    const { channels, sink, subscription } = setup(store, 3);
    const channel = await channels.acquire('s', subscription);
    await subscription.start(channel, { requestId: 1, sessionId: 's', fromSeq: 0, epoch: undefined });
    await vi.waitFor(() => expect(subscription.state).toBe('live'), WAIT);
    expect(sink.seqs()).toEqual(Array.from({ length: 10 }, (_, seq) => seq));
    expect(store.reads).toEqual([0, 3, 6, 9]);
    subscription.close();
    channels.closeAll();
  });

  it('never sends a page read ahead in another epoch: the subscriber is reset and gets the new log', async () => {
    /** Rewrites the session when the second page is read (ahead); its notifications never arrive. */
    class RewrittenOnReadAhead extends MemoryStore {
      rewritten = false;
      override watch(sessionId: string): () => void {
        return super.watch(sessionId, { onCommitted: () => undefined, onResync: () => undefined });
      }
      override async readStoredPage(sessionId: string, fromSeq: number, limit: number): Promise<StoredPage> {
        if (fromSeq === 3 && !this.rewritten) {
          this.rewritten = true;
          await this.deleteSession(sessionId);
          await commit(this, sessionId, 4);
        }
        return super.readStoredPage(sessionId, fromSeq, limit);
      }
    }
    const store = new RewrittenOnReadAhead();
    await commit(store, 's', 9);
    const { channels, sink, subscription } = setup(store, 3);
    const channel = await channels.acquire('s', subscription);
    const oldEpoch = channel.epoch;
    await subscription.start(channel, { requestId: 1, sessionId: 's', fromSeq: 0, epoch: undefined });
    await vi.waitFor(() => expect(sink.messages.some((message) => message.type === 'live')).toBe(true), WAIT);
    expect(store.rewritten).toBe(true);
    const types = sink.messages.map((message) => message.type);
    // The first page (old epoch) went out; then the reset and the whole new log, never a page of one epoch
    // sent as part of the other.
    expect(types).toEqual(['subscribed', 'events', 'reset', 'events', 'events', 'live']);
    expect(sink.messages[2]).toMatchObject({ type: 'reset', epoch: channel.epoch });
    expect(channel.epoch).not.toBe(oldEpoch);
    expect(sink.seqs()).toEqual([0, 1, 2, 0, 1, 2, 3]);
    subscription.close();
    channels.closeAll();
  });
});
