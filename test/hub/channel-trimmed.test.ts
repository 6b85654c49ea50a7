// A session channel that missed notices reads the store forward to fill the gap. When the events it missed were
// trimmed meanwhile (issue 29), it goes on from the first seq kept instead of retrying the read forever: its
// listeners get what the log holds, and a subscriber that needs the trimmed seqs ends with GONE from its own
// catch-up (test/hub/gone.test.ts).
import { describe, expect, it, vi } from 'vitest';
import type { LiveBatch } from '../../server/fanout/live-batch.ts';
import { ChannelRegistry } from '../../server/fanout/channel-registry.ts';
import { createLogger } from '../../server/logger.ts';
import { HubMetrics } from '../../server/metrics.ts';
import type { CommittedBatch } from '../../server/store/event-store.ts';
import { MemoryBackend } from '../../server/store/memory/memory-backend.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { storeReadLimits } from '../../server/limits/store-reads.ts';

/** The memory engine's backend, whose notices can be lost for a while (as Redis pub/sub loses them). */
class LossyBackend extends MemoryBackend {
  losing = false;

  override publish(batch: CommittedBatch): void {
    if (!this.losing) super.publish(batch);
  }
}

const notes = (count: number) => Array.from({ length: count }, (_, n) => ({ type: 'test/n', data: { n } }));

describe('session channel over a trimmed log', () => {
  it('fills a gap whose start was trimmed from the first seq kept, then delivers live again', async () => {
    const backend = new LossyBackend();
    const [store, writer] = [new MemoryStore({ backend }), new MemoryStore({ backend })];
    const first = await writer.commit({ sessionId: 's', expectedSeq: 0, events: notes(1) });
    const channels = new ChannelRegistry({
      store,
      logger: createLogger('silent'),
      metrics: new HubMetrics('test_'),
      reads: storeReadLimits({ catchUpPageSize: 100, maxFrameBytes: 1024 * 1024, maxEventBytes: 256 * 1024 }),
      onCommitted: () => undefined,
      onReset: () => undefined,
    });
    const log: string[] = [];
    const channel = await channels.acquire('s', {
      onBatch: (batch: LiveBatch) => void log.push(batch.events.map((event) => event.seq).join(',')),
      onReset: () => void log.push('reset'),
      onEpoch: () => void log.push('epoch'),
    });
    await channel.ready;
    backend.losing = true; // seqs 1..9 commit, and nobody hears of them
    await writer.commit({ sessionId: 's', expectedSeq: 1, events: notes(9) });
    backend.losing = false;
    expect(await writer.trim({ sessionId: 's', epoch: first.epoch, beforeSeq: 6 })).toMatchObject({ removed: 6 });
    await writer.commit({ sessionId: 's', expectedSeq: 10, events: notes(1) }); // its notice shows the gap
    await vi.waitFor(() => expect(log).toEqual(['6,7,8,9', '10']), { timeout: 5000, interval: 5 });
    await writer.commit({ sessionId: 's', expectedSeq: 11, events: notes(2) });
    await vi.waitFor(() => expect(log).toEqual(['6,7,8,9', '10', '11,12']), { timeout: 5000, interval: 5 });
    channels.closeAll();
    await Promise.all([store.close(), writer.close()]);
  });
});
