import { describe, expect } from 'vitest';
import { measureIdleMemory } from '../../bench/memory-run.ts';
import { socketIoTarget } from '../../bench/targets.ts';
import { test as it } from '../helpers/fixtures.ts';

describe('idle memory harness', () => {
  it('samples the server child after GC before and after the idle connections', async ({ redis }) => {
    const result = await measureIdleMemory(socketIoTarget({ quick: true, redisUrl: redis.url }), 20, 100);
    expect(result.connections).toBe(20);
    expect(result.rssBeforeBytes).toBeGreaterThan(0);
    expect(result.rssAfterBytes).toBeGreaterThan(0);
    expect(result.heapAfterBytes).toBeGreaterThan(0);
    expect(Number.isFinite(result.rssPerConnectionBytes)).toBe(true);
    expect(Number.isFinite(result.marginalRssPerConnectionBytes)).toBe(true);
    expect(result.marginalHeapPerConnectionBytes).toBeGreaterThan(0); // 20 more connections hold something
  });
});
