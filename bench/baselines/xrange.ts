import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import type { RedisStore } from '../../server/index.ts';
import { type ValidatedDraft } from '../../shared/events.ts';
import { normalizeDraft } from '../../shared/index.ts';
import { benchBatch } from '../workload.ts';
import { decodeWire } from '../wire.ts';

export interface ReplayResult {
  readonly events: number;
  readonly pageSize: number;
  readonly elapsedMs: number;
  readonly eventsPerSec: number;
}

/** Fill a session of the Redis store with `count` bench events (commits of 1,000; not measured). */
export async function fillSessionInStore(store: RedisStore, sessionId: string, count: number): Promise<void> {
  for (let first = 0; first < count; first += 1000) {
    const events: ValidatedDraft[] = benchBatch(first, Math.min(1000, count - first), 0).map(normalizeDraft);
    const result = await store.commit({ sessionId, expectedSeq: first, events });
    if (result.status !== 'committed') throw new Error(`fill: commit ${result.status}`);
  }
}

function summarize(events: number, pageSize: number, start: number): ReplayResult {
  const elapsedMs = performance.now() - start;
  return { events, pageSize, elapsedMs, eventsPerSec: (events * 1000) / elapsedMs };
}

/**
 * The catch-up baseline: page a stream from the start with raw XRANGE (`pageSize` entries, one page in flight, as
 * a replay does) and msgpack-decode every entry's `e` field (a reader needs the events, not the bytes).
 */
export async function pageStream(redis: Redis, key: string, pageSize: number): Promise<ReplayResult> {
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
  return summarize(events, pageSize, start);
}

/** The same replay through `RedisStore.read` (entry checks, body verification, deep freeze): the store's share. */
export async function pageStore(store: RedisStore, sessionId: string, pageSize: number): Promise<ReplayResult> {
  const start = performance.now();
  let events = 0;
  for (;;) {
    const page = await store.read(sessionId, events, pageSize);
    events += page.length;
    if (page.length < pageSize) break;
  }
  return summarize(events, pageSize, start);
}

/** Raw XRANGE paging of a session's stream in the Redis store (one warm-up pass, then the measured one). */
export async function runXrangeBaseline(redisUrl: string, key: string, pageSize: number): Promise<ReplayResult> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  try {
    await pageStream(redis, key, pageSize);
    return await pageStream(redis, key, pageSize);
  } finally {
    redis.disconnect();
  }
}
