import { Redis } from 'ioredis';
import { hubTarget } from '../hub-target.ts';
import { atMost, type Row } from '../report.ts';
import type { BenchContext } from '../targets.ts';
import { runWarmupCase, type WarmupMeasurement } from './warmup.ts';

/** The rate agents stream at (as in the warm-up scenario): one event per append. */
const RATE_PER_SEC = 200;
/** Window boundaries (ms after the first append); the last window is the one compared. */
const WINDOWS = { quick: [0, 2000, 6000], full: [0, 10_000, 20_000, 30_000] } as const;
const PAIRS = { quick: 2, full: 4 };

export interface SnapshotCostPair {
  /** Server CPU per append in the last window, µs: snapshots on (the default policy) and off. */
  readonly onMicros: number;
  readonly offMicros: number;
  /** Snapshots the "on" node wrote for its session (read from Redis after its run). */
  readonly onSnapshotSeq: number;
}

export interface SnapshotCostResults {
  readonly ratePerSec: number;
  readonly window: { readonly fromMs: number; readonly toMs: number };
  readonly pairs: readonly SnapshotCostPair[];
}

const lastWindow = (measurement: WarmupMeasurement): number =>
  measurement.windows.at(-1)?.cpuMicrosPerAppend ?? Number.NaN;

function median(values: readonly number[]): number {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = sorted.length / 2;
  return sorted.length % 2 === 1 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The highest snapshot seq among the warm-up sessions' snapshot hashes (-1: none written). */
async function latestSnapshotSeq(redis: Redis, since: Set<string>): Promise<number> {
  let best = -1;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', 'sh:{bench-warmup-*}:snap', 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      if (since.has(key)) continue;
      since.add(key);
      const seq = await redis.hget(key, 's');
      if (seq !== null) best = Math.max(best, Number(seq));
    }
  } while (cursor !== '0');
  return best;
}

/**
 * Scenario: what projection snapshots cost on the append path. A fresh hub node with the default snapshot policy
 * (a build every 500 events, at 200 appends/s one every 2.5 s) and one with snapshots off take turns (on/off, then
 * off/on, …) under the warm-up workload (one subscriber, one writer, 200 one-event appends/s); the row compares the
 * server CPU per append in the last window, median over the pairs. Target: unchanged within noise (≤ 1.1×).
 */
export async function runSnapshotCost(
  context: BenchContext,
  log: (line: string) => void,
): Promise<{ rows: Row[]; raw: SnapshotCostResults }> {
  const windows = context.quick ? WINDOWS.quick : WINDOWS.full;
  const on = hubTarget(context);
  const off = hubTarget(context, 'source', { snapshots: false });
  const redis = new Redis(context.redisUrl);
  const seen = new Set<string>();
  await latestSnapshotSeq(redis, seen); // what earlier scenarios left is not this scenario's
  const pairs: SnapshotCostPair[] = [];
  try {
    for (let pair = 0; pair < (context.quick ? PAIRS.quick : PAIRS.full); pair++) {
      const order = pair % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
      const measured: Partial<Record<'on' | 'off', number>> = {};
      let onSnapshotSeq = -1;
      for (const which of order) {
        const measurement = await runWarmupCase(which === 'on' ? on : off, windows, RATE_PER_SEC);
        measured[which] = lastWindow(measurement);
        if (which === 'on') onSnapshotSeq = await latestSnapshotSeq(redis, seen);
      }
      const result = { onMicros: measured.on ?? Number.NaN, offMicros: measured.off ?? Number.NaN, onSnapshotSeq };
      pairs.push(result);
      log(
        `snapshot cost pair ${pair + 1} (${order.join('/')}): µs of hub CPU per append ` +
          `on ${result.onMicros.toFixed(0)}, off ${result.offMicros.toFixed(0)} ` +
          `(${(result.onMicros / result.offMicros).toFixed(2)}×); latest snapshot of the "on" run at seq ${onSnapshotSeq}`,
      );
    }
  } finally {
    redis.disconnect();
  }
  const results: SnapshotCostResults = {
    ratePerSec: RATE_PER_SEC,
    window: { fromMs: windows.at(-2)!, toMs: windows.at(-1)! },
    pairs,
  };
  return { rows: snapshotCostRows(results), raw: results };
}

/** Table rows of the snapshot cost scenario (pure). */
export function snapshotCostRows(results: SnapshotCostResults): Row[] {
  if (results.pairs.length === 0) return [];
  const on = median(results.pairs.map((pair) => pair.onMicros));
  const off = median(results.pairs.map((pair) => pair.offMicros));
  const pairRatio = median(results.pairs.map((pair) => pair.onMicros / pair.offMicros));
  const window = `${results.window.fromMs / 1000}–${results.window.toMs / 1000} s`;
  const scenario = `snapshots on vs off, ${results.ratePerSec} appends/s`;
  return [
    {
      scenario,
      metric: `hub CPU per append, ${window} after the first (median of ${results.pairs.length} pairs)`,
      unit: 'µs',
      hub: on,
      baselineName: 'same hub, snapshots off',
      baseline: off,
      target: '≤ 1.1× (noise)',
      met: atMost(on, 1.1 * off),
    },
    {
      scenario,
      metric: 'median of the pairs’ ratios (on / off)',
      unit: '×',
      hub: pairRatio,
      baselineName: null,
      baseline: null,
      target: '≤ 1.1×',
      met: Number.isNaN(pairRatio) ? null : pairRatio <= 1.1,
    },
  ];
}
