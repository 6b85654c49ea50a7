import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { RetentionMetrics } from '../../server/archive/retention-metrics.ts';
import { RetentionSweeper } from '../../server/archive/retention-sweeper.ts';
import { createLogger } from '../../server/logger.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import {
  epochKeyPattern,
  sessionDataKeys,
  sessionIdOfEpochKey,
  sessionKeys,
} from '../../server/store/redis/redis-keys.ts';
import type { Row } from '../report.ts';
import type { BenchContext } from '../targets.ts';

const DAY = 86_400_000;
/** The sessions' last activity (import-mode commits keep it), long before the sweeper's clock. */
const T0 = Date.UTC(2026, 0, 1);
const EVENTS_PER_SESSION = 5;
const WRITERS = 64;

export interface RetentionBenchResult {
  readonly sessions: number;
  /** A sweep that expires every session: sessions/s. */
  readonly sweepExpiring: number;
  /** The floor beside it: `SCAN` of the epoch keys and a pipelined `DEL` of each session's keys. */
  readonly scanDelete: number;
  /** A sweep that expires none (all within their rule): sessions looked at per second. */
  readonly sweepKeeping: number;
  /** The floor beside it: the `SCAN` alone. */
  readonly scanOnly: number;
  /** p99 (ms) of one-event commits sent one after the other on the sweeping store, while it expired every session. */
  readonly appendP99DuringSweep: number;
  /** The same commits' p99 (ms) with no sweep running, same run. */
  readonly appendP99Idle: number;
  readonly appendSamples: number;
}

/** p99 of `values` (ms). */
function p99(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? Number.NaN;
}

/**
 * Commit one event at a time to one session on `store` (the connection the sweeper uses) until `until` settles, or
 * `count` times: the latency of each commit (ms).
 */
async function commitLatencies(
  store: RedisStore,
  until: Promise<unknown> | undefined,
  count: number,
): Promise<number[]> {
  const sessionId = `latency/${randomUUID()}`;
  const latencies: number[] = [];
  let done = false;
  void until?.then(() => (done = true));
  for (let seq = 0; until === undefined ? seq < count : !done; seq++) {
    const started = performance.now();
    const result = await store.commit({ sessionId, expectedSeq: seq, events: [{ type: 'test/event', data: { seq } }] });
    if (result.status !== 'committed') throw new Error(`a latency commit was ${result.status}`);
    latencies.push(performance.now() - started);
  }
  return latencies;
}

/** Write `count` sessions of a few events each under `keyPrefix`, with commit time `T0`. */
async function writeSessions(store: RedisStore, count: number): Promise<void> {
  let next = 0;
  const events = Array.from({ length: EVENTS_PER_SESSION }, (_, index) => ({
    type: 'test/event',
    data: { index, text: 'x'.repeat(200) },
  }));
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (next < count) {
        const sessionId = `bench/${next++}`;
        await store.commitGroup({ sessionId, expectedSeq: 0, batches: [{ events }], time: T0 });
      }
    }),
  );
}

function sweeper(store: RedisStore, clock: () => number): RetentionSweeper {
  return new RetentionSweeper({
    store,
    config: { retainForMs: 30 * DAY, clock },
    nodeName: 'bench',
    logger: createLogger('silent'),
    metrics: new RetentionMetrics(new Registry(), 'session_hub_'),
  });
}

/** Sessions per second of one sweep over the store's sessions. */
async function timeSweep(
  store: RedisStore,
  clock: () => number,
  expect: 'all' | 'none',
  count: number,
): Promise<number> {
  const service = sweeper(store, clock);
  try {
    const started = performance.now();
    const outcome = await service.sweepOnce();
    const seconds = (performance.now() - started) / 1000;
    if (outcome.status !== 'done') throw new Error(`the sweep did not run: ${outcome.status}`);
    if (outcome.expired !== (expect === 'all' ? count : 0)) throw new Error(`the sweep expired ${outcome.expired}`);
    return count / seconds;
  } finally {
    await service.close();
  }
}

/** The floor: walk the epoch keys with SCAN (500 per step), and with `del` delete every session's keys. */
async function timeScan(redis: Redis, keyPrefix: string, count: number, del: boolean): Promise<number> {
  const started = performance.now();
  let cursor = '0';
  let seen = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', epochKeyPattern(keyPrefix), 'COUNT', 500);
    cursor = next;
    seen += keys.length;
    if (del && keys.length > 0) {
      const pipeline = redis.pipeline();
      for (const key of keys) {
        const sessionKeysOf = sessionKeys(keyPrefix, sessionIdOfEpochKey(keyPrefix, key)!);
        pipeline.del(sessionKeysOf.log, sessionKeysOf.epoch, ...sessionDataKeys(sessionKeysOf));
      }
      await pipeline.exec();
    }
  } while (cursor !== '0');
  if (seen < count) throw new Error(`SCAN saw ${seen} of ${count} sessions`);
  return count / ((performance.now() - started) / 1000);
}

/**
 * Retention: how fast one node sweeps (quick: 5,000 sessions, full: 50,000, of 5 events each), next to the least
 * any sweep must do on the same Redis in the same run: a `SCAN` of the sessions (nothing to expire), a `SCAN` and a
 * pipelined `DEL` of each session's keys (everything to expire). Runs in-process against the bench's Redis.
 */
export async function runRetention(
  context: BenchContext,
  log: (line: string) => void,
): Promise<{ rows: Row[]; raw: RetentionBenchResult }> {
  const count = context.quick ? 5000 : 50_000;
  const hubPrefix = `ret-${randomUUID().slice(0, 6)}:`;
  const floorPrefix = `ret-${randomUUID().slice(0, 6)}:`;
  const store = await RedisStore.open({ url: context.redisUrl, keyPrefix: hubPrefix });
  const floorStore = await RedisStore.open({ url: context.redisUrl, keyPrefix: floorPrefix });
  const redis = new Redis(context.redisUrl);
  try {
    log(`retention: writing ${count} sessions twice`);
    await writeSessions(store, count);
    await writeSessions(floorStore, count);
    const sweepKeeping = await timeSweep(store, () => T0 + DAY, 'none', count);
    const scanOnly = await timeScan(redis, floorPrefix, count, false);
    const sweep = timeSweep(store, () => T0 + 31 * DAY, 'all', count);
    const during = await commitLatencies(store, sweep, 0);
    const sweepExpiring = await sweep;
    const idle = await commitLatencies(store, undefined, during.length);
    const scanDelete = await timeScan(redis, floorPrefix, count, true);
    const raw = {
      sessions: count,
      sweepExpiring,
      scanDelete,
      sweepKeeping,
      scanOnly,
      appendP99DuringSweep: p99(during),
      appendP99Idle: p99(idle),
      appendSamples: during.length,
    };
    return { rows: retentionRows(raw), raw };
  } finally {
    redis.disconnect();
    await Promise.all([store.close(), floorStore.close()]);
  }
}

/** Table rows of the retention scenario (pure). */
export function retentionRows(result: RetentionBenchResult): Row[] {
  const scenario = `retention sweep, ${result.sessions.toLocaleString('en-US')} sessions`;
  return [
    {
      scenario,
      metric: 'sessions/s, every one expired',
      unit: '/s',
      hub: result.sweepExpiring,
      baselineName: 'SCAN + pipelined DEL',
      baseline: result.scanDelete,
      target: '',
      met: null,
    },
    {
      scenario,
      metric: `p99 of one-event commits on the sweeping store (${result.appendSamples} sequential)`,
      unit: 'ms',
      hub: result.appendP99DuringSweep,
      baselineName: 'the same commits, no sweep',
      baseline: result.appendP99Idle,
      target: '',
      met: null,
    },
    {
      scenario,
      metric: 'sessions/s looked at, none expired',
      unit: '/s',
      hub: result.sweepKeeping,
      baselineName: 'SCAN alone',
      baseline: result.scanOnly,
      target: '',
      met: null,
    },
  ];
}
