import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { benchDraft } from '../workload.ts';
import { decodeWire, encodeWire } from '../wire.ts';

export interface XrangeResult {
  readonly events: number;
  readonly pageSize: number;
  readonly elapsedMs: number;
  readonly eventsPerSec: number;
}

/** Fill a stream with `count` stored bench events (entry id `<seq>-1`, as the Redis store writes them). */
export async function fillStream(redis: Redis, key: string, count: number): Promise<void> {
  const time = Date.now();
  for (let first = 0; first < count; first += 1000) {
    const pipeline = redis.pipeline();
    for (let seq = first; seq < Math.min(count, first + 1000); seq++) {
      pipeline.xadd(key, `${seq}-1`, 'e', encodeWire({ seq, time, ...benchDraft(seq, 0) }));
    }
    await pipeline.exec();
  }
}

/**
 * The catch-up baseline: read a whole stream from the start with XRANGE pages of `pageSize`, decoding every
 * entry (a reader needs the events, not the bytes). One page in flight at a time, as a replay does.
 */
export async function pageStream(redis: Redis, key: string, pageSize: number): Promise<XrangeResult> {
  const start = performance.now();
  let events = 0;
  let from = '-';
  for (;;) {
    const page = await redis.xrangeBuffer(key, from, '+', 'COUNT', pageSize);
    for (const [, fields] of page) {
      const value = fields[1];
      if (value !== undefined) decodeWire(value);
      events++;
    }
    const last = page.at(-1);
    if (last === undefined || page.length < pageSize) break;
    from = `(${last[0].toString()}`;
  }
  const elapsedMs = performance.now() - start;
  return { events, pageSize, elapsedMs, eventsPerSec: (events * 1000) / elapsedMs };
}

/** Fill a fresh stream with `count` events, page through it, delete it. */
export async function runXrangeBaseline(redisUrl: string, count: number, pageSize: number): Promise<XrangeResult> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const key = `bench:xrange:${Date.now()}`;
  try {
    await fillStream(redis, key, count);
    await pageStream(redis, key, pageSize); // warm-up pass (JIT, Redis page cache)
    return await pageStream(redis, key, pageSize);
  } finally {
    await redis.del(key);
    redis.disconnect();
  }
}
