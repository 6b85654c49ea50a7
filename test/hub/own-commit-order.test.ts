import { describe, expect, it, vi } from 'vitest';
import type { SessionEvent } from '../../shared/index.ts';
import type { ServerMessage } from '../../shared/protocol.ts';
import { createLogger } from '../../server/logger.ts';
import { HubMetrics } from '../../server/metrics.ts';
import { ChannelRegistry } from '../../server/fanout/channel-registry.ts';
import type { SessionHead, StoreWatchHandlers } from '../../server/store/event-store.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { Subscription, type SubscriberSink } from '../../server/fanout/subscription.ts';
import { storeReadLimits } from '../../server/limits/store-reads.ts';

const WAIT = { timeout: 10_000, interval: 10 };
const reads = storeReadLimits({ catchUpPageSize: 100, maxFrameBytes: 1024 * 1024, maxEventBytes: 256 * 1024 });

/** A memory store that counts head reads and can lose the notices of chosen seqs (a dropped pub/sub message). */
class WatchedStore extends MemoryStore {
  heads = 0;
  readonly lostSeqs = new Set<number>();

  override async head(sessionId: string): Promise<SessionHead> {
    this.heads++;
    return super.head(sessionId);
  }

  override watch(sessionId: string, handlers: StoreWatchHandlers): () => void {
    return super.watch(sessionId, {
      onCommitted: (batch) => {
        if (!batch.events.some((event) => this.lostSeqs.has(event.seq))) handlers.onCommitted(batch);
      },
      onResync: () => handlers.onResync(),
    });
  }
}

/** A connection's frames, in the order they were written: the subscription's and the acks the test writes. */
function connection(): SubscriberSink & { readonly messages: ServerMessage[] } {
  const messages: ServerMessage[] = [];
  return {
    messages,
    behind: false,
    whenDrained: () => Promise.resolve(),
    closing: false,
    send: (message) => messages.push(message),
    sendBatch: (batch) => messages.push(batch.message),
  };
}

function node(store: MemoryStore) {
  const logger = createLogger('silent');
  const metrics = new HubMetrics('test_');
  const cached: number[] = [];
  const channels = new ChannelRegistry({
    store,
    logger,
    metrics,
    reads,
    onCommitted: (_sessionId, _epoch, events) => cached.push(...events.map((event) => event.seq)),
    onReset: () => undefined,
  });
  const subscribe = async (sink: SubscriberSink): Promise<void> => {
    const subscription = new Subscription(
      { sessionId: 's', fromSeq: 0 },
      { sink, logger, metrics, reads, maxFrameBytes: 1024 * 1024, maxBufferedLiveEvents: 1000 },
    );
    const channel = await channels.acquire('s', subscription);
    await subscription.start(channel, { requestId: 1, sessionId: 's', fromSeq: 0, epoch: undefined });
  };
  return { channels, cached, subscribe };
}

async function commit(store: MemoryStore, count: number): Promise<readonly SessionEvent[]> {
  const { headSeq } = await store.head('s');
  const events = Array.from({ length: count }, (_, index) => ({ type: 'test/n', data: { index } }));
  const result = await store.commit({ sessionId: 's', expectedSeq: headSeq + 1, events });
  if (result.status !== 'committed') throw new Error(result.status);
  return result.events;
}

/** What the pipeline writes for an own commit, then hands the batch over (the hub's order). */
function ack(sink: ReturnType<typeof connection>, channels: ChannelRegistry, events: readonly SessionEvent[]): void {
  const epoch = 'e';
  const first = events[0]!;
  const last = events[events.length - 1]!;
  sink.messages.push({
    type: 'ack',
    id: 99,
    sessionId: 's',
    epoch,
    firstSeq: first.seq,
    lastSeq: last.seq,
    time: first.time,
    duplicate: false,
  });
  channels.ownCommitFinished('s', { sessionId: 's', epoch: storeEpoch, events });
}
let storeEpoch = '';

/** Where the ack is, and where the first `events` frame with one of the acked seqs is. */
function order(messages: readonly ServerMessage[], seqs: readonly number[]): { ack: number; events: number } {
  return {
    ack: messages.findIndex((message) => message.type === 'ack'),
    events: messages.findIndex(
      (message) => message.type === 'events' && message.events.some((event) => seqs.includes(event.seq)),
    ),
  };
}

/** Let every queued promise and I/O callback of this in-process node run (a memory store does no I/O). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

// Issue 26, item 20: the writer's ack precedes the events it committed on its connection (docs/protocol.md), also
// for a channel made while the commit was in flight and for a catch-up read during it.
describe('own commits in flight: the ack goes before the events', () => {
  it('a channel made while the commit is in flight sends its events only after the ack', async () => {
    const store = new WatchedStore();
    await commit(store, 2);
    const { channels, subscribe } = node(store);
    channels.ownCommitStarted('s');
    const own = await commit(store, 3); // in the store, its ack not written yet
    storeEpoch = (await store.head('s')).epoch;
    const heads = store.heads;
    const sink = connection();
    const subscribed = subscribe(sink);
    await vi.waitFor(() => expect(store.heads).toBeGreaterThan(heads), WAIT);
    await settled();
    ack(sink, channels, own);
    await subscribed;
    await vi.waitFor(() => expect(sink.messages.some((message) => message.type === 'live')).toBe(true), WAIT);
    const { ack: acked, events } = order(sink.messages, [2, 3, 4]);
    expect(events).toBeGreaterThan(acked);
    const seqs = sink.messages.flatMap((message) => (message.type === 'events' ? message.events : []));
    expect(seqs.map((event) => event.seq)).toEqual([0, 1, 2, 3, 4]);
  });

  it('a catch-up read while an own commit is in flight stops at the channel; the rest comes live after the ack', async () => {
    const store = new WatchedStore();
    await commit(store, 2);
    storeEpoch = (await store.head('s')).epoch;
    const { channels, subscribe } = node(store);
    const first = connection();
    await subscribe(first);
    channels.ownCommitStarted('s');
    const own = await commit(store, 3);
    const sink = connection();
    await subscribe(sink);
    await vi.waitFor(() => expect(sink.messages.some((message) => message.type === 'live')).toBe(true), WAIT);
    await settled();
    ack(sink, channels, own);
    await vi.waitFor(() => expect(order(sink.messages, [4]).events).toBeGreaterThan(0), WAIT);
    const { ack: acked, events } = order(sink.messages, [2, 3, 4]);
    expect(events).toBeGreaterThan(acked);
    const seqs = sink.messages.flatMap((message) => (message.type === 'events' ? message.events : []));
    expect(seqs.map((event) => event.seq)).toEqual([0, 1, 2, 3, 4]);
  });

  it('a gap filled up to an own batch hands the append cache only the events before it', async () => {
    const store = new WatchedStore();
    await commit(store, 2);
    storeEpoch = (await store.head('s')).epoch;
    const { channels, cached, subscribe } = node(store);
    const sink = connection();
    await subscribe(sink);
    store.lostSeqs.add(2);
    await commit(store, 1); // another node's commit of seq 2, its notice lost
    channels.ownCommitStarted('s');
    const own = await commit(store, 2); // seqs 3 and 4, this node's
    ack(sink, channels, own);
    await vi.waitFor(() => expect(order(sink.messages, [4]).events).toBeGreaterThan(0), WAIT);
    expect(cached).toEqual([2]);
    const seqs = sink.messages.flatMap((message) => (message.type === 'events' ? message.events : []));
    expect(seqs.map((event) => event.seq)).toEqual([0, 1, 2, 3, 4]);
  });
});
