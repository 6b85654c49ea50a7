import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { runClosedLoop, runOpenLoop } from '../load.ts';
import { redisCpuMs } from '../redis-stats.ts';
import { LatencyRecorder, type LatencySummary } from '../stats.ts';
import type { Timing } from '../fanout-run.ts';
import { benchDraft } from '../workload.ts';
import { encodeWire } from '../wire.ts';

export interface XaddResult {
  /** Events per append call: 1 = one XADD (many in flight on the one connection), 16 = a pipeline of 16 XADDs. */
  readonly batch: number;
  readonly streams: number;
  readonly eventsPerSec: number;
  /** redis-server CPU per 1,000 events. */
  readonly redisCpuMsPer1kEvents: number;
  /** Latency of one pipeline (from its intended start) at 50% of the saturation rate. */
  readonly latencyAtHalfLoad: LatencySummary;
}

/** The stored form of one bench event, as a store would keep it: msgpack of the committed event. */
function storedEvent(seq: number): Buffer {
  return encodeWire({ seq, time: Date.now(), ...benchDraft(seq, performance.now()) });
}

/**
 * The append baseline: ioredis writing the same events straight into Redis streams with XADD, `streams` sessions
 * in parallel, each keeping one pipeline of `batch` XADDs in flight. No validation, no seq check, no script:
 * the most a Node client can push into Redis.
 */
export async function runXaddBaseline(
  redisUrl: string,
  batch: number,
  streams: number,
  timing: Timing,
): Promise<XaddResult> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const keyPrefix = `bench:xadd:${batch}:${Date.now()}:`;
  let seq = 0;
  const append = async (stream: number): Promise<number> => {
    if (batch === 1) {
      await redis.xadd(`${keyPrefix}${stream}`, '*', 'e', storedEvent(seq++));
      return 1;
    }
    const pipeline = redis.pipeline();
    for (let index = 0; index < batch; index++) pipeline.xadd(`${keyPrefix}${stream}`, '*', 'e', storedEvent(seq++));
    const replies = await pipeline.exec();
    for (const [error] of replies ?? []) if (error !== null) throw error;
    return batch;
  };
  try {
    const cpuBefore = await redisCpuMs(redis);
    const saturation = await runClosedLoop({ concurrency: streams, ...timing, operation: append });
    const cpuAfter = await redisCpuMs(redis);
    const totalEvents = seq;
    const latency = new LatencyRecorder();
    const appendsPerSec = saturation.unitsPerSec / batch / 2;
    let recording = false;
    const warmup = setTimeout(() => (recording = true), timing.warmupMs);
    const pending = new Set<Promise<void>>();
    await runOpenLoop({
      ratePerSec: appendsPerSec,
      durationMs: timing.warmupMs + timing.durationMs,
      fire: (intendedMs, index) => {
        const done = append(index % streams).then(() => {
          if (recording) latency.recordMs(performance.now() - intendedMs);
          pending.delete(done);
        });
        pending.add(done);
      },
    });
    clearTimeout(warmup);
    await Promise.all(pending);
    return {
      batch,
      streams,
      eventsPerSec: saturation.unitsPerSec,
      redisCpuMsPer1kEvents: (cpuAfter - cpuBefore) / (totalEvents / 1000),
      latencyAtHalfLoad: latency.summary(),
    };
  } finally {
    redis.disconnect();
  }
}
