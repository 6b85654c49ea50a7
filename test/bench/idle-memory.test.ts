import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureIdleMemory } from '../../bench/memory-run.ts';
import { socketIoTarget } from '../../bench/targets.ts';
import { RedisServer } from '../helpers/redis-server.ts';

let redis: RedisServer;
beforeAll(async () => {
  redis = await RedisServer.start();
});
afterAll(async () => {
  await redis.stop();
});

describe('idle memory harness', () => {
  it('samples the server child after GC before and after the idle connections', async () => {
    const result = await measureIdleMemory(socketIoTarget({ quick: true, redisUrl: redis.url }), 20, 100);
    expect(result.connections).toBe(20);
    expect(result.rssBeforeBytes).toBeGreaterThan(0);
    expect(result.rssAfterBytes).toBeGreaterThan(0);
    expect(result.heapAfterBytes).toBeGreaterThan(0);
    expect(Number.isFinite(result.rssPerConnectionBytes)).toBe(true);
  });
});
