import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillStream, pageStream } from '../../bench/baselines/xrange.ts';
import { runXaddBaseline } from '../../bench/baselines/xadd.ts';
import { RedisServer } from '../helpers/redis-server.ts';

let redis: RedisServer;
beforeAll(async () => {
  redis = await RedisServer.start();
});
afterAll(async () => {
  await redis.stop();
});

describe('Redis baselines (tiny inputs)', () => {
  it('XRANGE paging reads back every event of a filled stream, ids <seq>-1', async () => {
    const client = new Redis(redis.url);
    try {
      await fillStream(client, 'smoke:log', 2_345);
      expect(await client.xlen('smoke:log')).toBe(2_345);
      const [[firstId]] = (await client.xrange('smoke:log', '-', '+', 'COUNT', 1)) as [[string, string[]]];
      expect(firstId).toBe('0-1');
      const result = await pageStream(client, 'smoke:log', 500);
      expect(result.events).toBe(2_345);
    } finally {
      client.disconnect();
    }
  });

  it('pipelined XADD writes events in single and batched form', async () => {
    for (const batch of [1, 16]) {
      const result = await runXaddBaseline(redis.url, batch, 4, { warmupMs: 0, durationMs: 100 });
      expect(result.eventsPerSec).toBeGreaterThan(0);
      expect(result.latencyAtHalfLoad.count).toBeGreaterThan(0);
    }
  });
});
