import { describe, expect } from 'vitest';
import { fillSessionInStore, pageStore, pageStream } from '../../bench/baselines/xrange.ts';
import { runXaddBaseline } from '../../bench/baselines/xadd.ts';
import { test as it } from '../helpers/fixtures.ts';

describe('Redis baselines (tiny inputs)', () => {
  it('XRANGE and RedisStore.read paging read back every event of a session filled through the store', async ({
    admin: client,
    redisStore: store,
  }) => {
    await fillSessionInStore(store, 'smoke', 2_345);
    const key = store.keys('smoke').log;
    expect(await client.xlen(key)).toBe(2_345);
    expect((await pageStream(client, key, 500)).events).toBe(2_345);
    expect((await pageStore(store, 'smoke', 500)).events).toBe(2_345);
  });

  it('pipelined XADD writes events in single and batched form', async ({ redis }) => {
    for (const batch of [1, 16]) {
      const result = await runXaddBaseline(redis.url, batch, 4, { warmupMs: 0, durationMs: 100 });
      expect(result.eventsPerSec).toBeGreaterThan(0);
      expect(result.latencyAtHalfLoad.count).toBeGreaterThan(0);
    }
  });
});
