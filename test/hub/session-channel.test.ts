import { describe, expect, it, vi } from 'vitest';
import type { SessionEvent } from '../../shared/index.ts';
import type { LiveBatch } from '../../server/fanout/live-batch.ts';
import { ChannelRegistry } from '../../server/fanout/channel-registry.ts';
import type { ChannelListener } from '../../server/fanout/session-channel.ts';
import { createLogger } from '../../server/logger.ts';
import { HubMetrics } from '../../server/metrics.ts';
import { StoreUnavailableError, type SessionHead } from '../../server/store/event-store.ts';
import { MemoryBackend } from '../../server/store/memory/memory-backend.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { storeReadLimits } from '../../server/limits/store-reads.ts';

const WAIT = { timeout: 5000, interval: 5 };

/** A listener that writes `name:seq…` for each batch and `name:reset`/`name:epoch` into `log`. */
function listener(name: string, log: string[]): ChannelListener {
  return {
    onBatch: (batch: LiveBatch) => void log.push(`${name}:${batch.events.map((event) => event.seq).join(',')}`),
    onReset: () => void log.push(`${name}:reset`),
    onEpoch: () => void log.push(`${name}:epoch`),
  };
}

function registry(store: MemoryStore): ChannelRegistry {
  return new ChannelRegistry({
    store,
    logger: createLogger('silent'),
    metrics: new HubMetrics('test_'),
    reads: storeReadLimits({ catchUpPageSize: 100, maxFrameBytes: 1024 * 1024, maxEventBytes: 256 * 1024 }),
    onCommitted: () => undefined,
    onReset: () => undefined,
  });
}

/** Another node's commit: the channel hears of it through the store's notification. */
async function commit(store: MemoryStore, count: number): Promise<readonly SessionEvent[]> {
  const { headSeq } = await store.head('s');
  const events = Array.from({ length: count }, (_, index) => ({ type: 'test/n', data: { index } }));
  const result = await store.commit({ sessionId: 's', expectedSeq: headSeq + 1, events });
  if (result.status !== 'committed') throw new Error(result.status);
  return result.events;
}

describe('session channel', () => {
  it('delivers to its listeners in the order they came, from one listener to several and back', async () => {
    const backend = new MemoryBackend();
    const [store, writer] = [new MemoryStore({ backend }), new MemoryStore({ backend })];
    await commit(writer, 1);
    const channels = registry(store);
    const log: string[] = [];
    const [a, b, c] = [listener('a', log), listener('b', log), listener('c', log)];
    const channel = await channels.acquire('s', a);
    await expect(channel.ready).resolves.toBeUndefined();
    await commit(writer, 1);
    await vi.waitFor(() => expect(log).toEqual(['a:1']), WAIT);
    await channels.acquire('s', b);
    expect(await channels.acquire('s', c)).toBe(channel);
    expect(channel.listenerCount).toBe(3);
    await commit(writer, 2);
    await vi.waitFor(() => expect(log).toEqual(['a:1', 'a:2,3', 'b:2,3', 'c:2,3']), WAIT);
    channels.release(channel, a);
    channels.release(channel, c);
    await commit(writer, 1);
    await vi.waitFor(() => expect(log.slice(4)).toEqual(['b:4']), WAIT);
    await channels.acquire('s', a);
    await commit(writer, 1);
    await vi.waitFor(() => expect(log.slice(5)).toEqual(['b:5', 'a:5']), WAIT);
    channels.release(channel, b);
    channels.release(channel, a);
    expect(channels.size).toBe(0);
    await commit(writer, 1); // no watcher left: nobody hears of it
    await channels.acquire('s', c).then((again) => expect(again).not.toBe(channel));
    expect(log.slice(7)).toEqual([]);
    channels.closeAll();
  });

  it('processes notices that arrive while idle in order, and holds the store’s notices during an own commit', async () => {
    const backend = new MemoryBackend();
    const [store, writer] = [new MemoryStore({ backend }), new MemoryStore({ backend })];
    const channels = registry(store);
    const log: string[] = [];
    const channel = await channels.acquire('s', listener('a', log));
    for (let round = 0; round < 3; round++) {
      await commit(writer, 2);
      await vi.waitFor(() => expect(channel.lastSeq).toBe(2 * round + 1), WAIT);
    }
    channels.ownCommitStarted('s');
    const own = await commit(writer, 1); // its notice is held until the commit is handed over
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(channel.lastSeq).toBe(5);
    channels.ownCommitFinished('s', { sessionId: 's', epoch: channel.epoch, events: own });
    await vi.waitFor(() => expect(channel.lastSeq).toBe(6), WAIT);
    expect(log).toEqual(['a:epoch', 'a:0,1', 'a:2,3', 'a:4,5', 'a:6']);
    channels.closeAll();
  });

  it('a channel whose head could not be read is failed: the next subscriber gets a new one', async () => {
    class FailingHead extends MemoryStore {
      failures = 1;
      override async head(sessionId: string): Promise<SessionHead> {
        if (this.failures-- > 0) throw new StoreUnavailableError('down');
        return super.head(sessionId);
      }
    }
    const store = new FailingHead();
    const channels = registry(store);
    const log: string[] = [];
    await expect(channels.acquire('s', listener('a', log))).rejects.toThrow('down');
    expect(channels.size).toBe(0);
    const channel = await channels.acquire('s', listener('b', log));
    expect(channel.failed).toBe(false);
    await commit(store, 1);
    await vi.waitFor(() => expect(log).toEqual(['b:epoch', 'b:0']), WAIT);
    channels.closeAll();
  });
});
