import { describe, expect, it } from 'vitest';
import { createLogger } from '../../server/logger.ts';
import { HubMetrics } from '../../server/metrics.ts';
import { SessionCache } from '../../server/append/session-cache.ts';
import type { StoredPage } from '../../server/store/event-store.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { storeReadLimits } from '../../server/limits/store-reads.ts';

/** A store whose reads wait for `open()` while `gated` is set. */
class GatedStore extends MemoryStore {
  gated = false;
  readonly #waiting: (() => void)[] = [];
  reading = false;

  override async readStoredPage(sessionId: string, fromSeq: number, limit: number): Promise<StoredPage> {
    if (this.gated) {
      this.reading = true;
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    return super.readStoredPage(sessionId, fromSeq, limit);
  }

  open(): void {
    this.gated = false;
    for (const resume of this.#waiting.splice(0)) resume();
  }
}

describe('hub session cache', () => {
  it('keeps a gap reported while a refresh runs (the entry stays stale)', async () => {
    const store = new GatedStore();
    const cache = new SessionCache({
      store,
      logger: createLogger('silent'),
      metrics: new HubMetrics('test_'),
      reads: storeReadLimits({ catchUpPageSize: 100, maxFrameBytes: 1024 * 1024, maxEventBytes: 256 * 1024 }),
      maxSessions: 10,
      maxBytes: 1 << 20,
      idleMs: 60_000,
      lifecycle: true,
    });
    const entry = await cache.acquire('s');
    const { epoch } = entry;
    store.gated = true;
    const refreshing = cache.refresh(entry);
    await expect.poll(() => store.reading).toBe(true);
    // Meanwhile the live stream hands the cache a batch past its end: a gap.
    const time = Date.now();
    cache.apply('s', epoch, [{ seq: 5, type: 'test/n', time, data: {} }]);
    expect(entry.stale).toBe(true);
    store.open();
    await refreshing;
    expect(entry.stale).toBe(true);
    cache.release(entry);
  });
});
