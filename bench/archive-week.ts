/**
 * Part of `npm run bench -- --only archive-tier` (bench/archive-tier.ts): a simulated stretch of days, time
 * compressed (a "day" is a batch of sessions written, then the archiver's ticks with `--archive-after` at 1 ms, so
 * every session goes idle once its day is over). Redis `used_memory` at its highest (before each day's archiving)
 * next to the hot working set (one day's sessions, before they are archived), while the total events written grow
 * by the number of days.
 *
 * Accounting: `used_memory` less the client connections' buffers (`usedMemory`); every figure is above a base read once the store and the archiver have run a warm-up day (written,
 * archived, deleted): the connections the archiver opens (the page connection), the scripts it loads and Redis'
 * own first-use buffers are paid once per node, not per session or event, and are left out of both sides of the
 * ratio. They are reported apart (`oneTimeCost`), as is the figure read the old way (above the empty store, the
 * hot working set read before the archiver ever ran: `legacy`).
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { Redis } from 'ioredis';
import { RedisStore } from '../server/index.ts';
import type { ArchiveBackend } from '../server/archive/archive-backend.ts';
import { Archiver } from '../server/archive/archiver.ts';
import { newArchiveCounts } from '../server/archive-metrics.ts';
import { normalizeDraft } from '../shared/index.ts';
import { fillSessionInStore } from './baselines/xrange.ts';
import { benchBatch } from './workload.ts';
import type { BenchContext } from './targets.ts';

const WEEK = { quick: { days: 10, sessions: 8, events: 400 }, full: { days: 50, sessions: 8, events: 1000 } };
/** Events per append when the sessions are written as the SDK writes them (each append with its idempotency key). */
export const KEYED_APPEND_EVENTS = 10;

/**
 * Redis `used_memory` less what its client connections hold (`MEMORY STATS` `clients.normal`: query and reply
 * buffers, which Redis grows with a large command or reply and shrinks lazily). Those swing by up to ~250 KB between
 * two reads of this bench, more than 50 days of archived sessions leave, and are no session's data.
 */
export async function usedMemory(redis: Redis): Promise<number> {
  const stats = (await redis.call('MEMORY', 'STATS')) as unknown[];
  const field = (name: string): number => Number(stats[stats.indexOf(name) + 1] ?? Number.NaN);
  return field('total.allocated') - field('clients.normal');
}

/**
 * The idempotency window of the `keyed-window` run, compressed like the rest of the simulated time (the archive-after
 * is 1 ms): every key has come of age by the time its session is archived, so the figure is the steady state of any
 * window once it has passed (a window of W keeps, besides, the keys of the last W's appends).
 */
export const BENCH_IDEMPOTENCY_WINDOW_MS = 1;

/** A session of `count` bench events in appends of `KEYED_APPEND_EVENTS`, each with its own idempotency key. */
export async function fillKeyedSession(store: RedisStore, sessionId: string, count: number): Promise<void> {
  for (let first = 0; first < count; first += KEYED_APPEND_EVENTS) {
    const events = benchBatch(first, Math.min(KEYED_APPEND_EVENTS, count - first), 0).map(normalizeDraft);
    const result = await store.commit({ sessionId, expectedSeq: first, events, idempotencyKey: randomUUID() });
    if (result.status !== 'committed') throw new Error(`fill: commit ${result.status}`);
  }
}

export interface WeekResults {
  readonly days: number;
  readonly sessionsPerDay: number;
  readonly eventsPerDay: number;
  /**
   * How the sessions were written: commits of 1,000 without keys, or keyed appends of `KEYED_APPEND_EVENTS`; and
   * `keyed-window`: keyed, archived with an idempotency window (`BENCH_IDEMPOTENCY_WINDOW_MS`).
   */
  readonly writes: 'unkeyed' | 'keyed' | 'keyed-window';
  /** Bytes above the base: one day's sessions, hot. */
  readonly hotWorkingSet: number;
  /** Bytes above the base: the highest seen over the days (before each day's archiving). */
  readonly peakUsedMemory: number;
  /** Bytes above the base after the last day was archived: what stays of every archived session. */
  readonly finalUsedMemory: number;
  /** `finalUsedMemory` per archived session. */
  readonly residuePerSession: number;
  /** The base above the empty store: what the warm-up day left (connections, scripts, Redis' first-use buffers). */
  readonly oneTimeCost: number;
  /** The same run read as before: above the empty store, the hot working set before the archiver's first run. */
  readonly legacy: { readonly hotWorkingSet: number; readonly peakUsedMemory: number };
  /** The same, fitted over all the days (the single reads above move by ±100 KB between runs). */
  readonly fitted: Fitted;
}

/**
 * A day's hot working set as the mean over the days of (before its archiving − after the previous day's), the
 * residue per archived session as the least-squares slope of the after-archiving figures over the sessions archived
 * so far, and the peak they make on the last day: hot working set + residue × the sessions archived before it.
 */
export interface Fitted {
  readonly hotWorkingSet: number;
  readonly residuePerSession: number;
  readonly peakUsedMemory: number;
}

export function fitted(hotOfDay: readonly number[], afterDay: readonly number[], sessionsPerDay: number): Fitted {
  const hotWorkingSet = hotOfDay.reduce((sum, value) => sum + value, 0) / hotOfDay.length;
  const xs = afterDay.map((_, day) => (day + 1) * sessionsPerDay);
  const meanX = xs.reduce((sum, x) => sum + x, 0) / xs.length;
  const meanY = afterDay.reduce((sum, y) => sum + y, 0) / afterDay.length;
  let covariance = 0;
  let variance = 0;
  xs.forEach((x, index) => {
    covariance += (x - meanX) * (afterDay[index]! - meanY);
    variance += (x - meanX) ** 2;
  });
  const residuePerSession = variance === 0 ? 0 : covariance / variance;
  const archivedBeforeLastDay = (afterDay.length - 1) * sessionsPerDay;
  return {
    hotWorkingSet,
    residuePerSession,
    peakUsedMemory: hotWorkingSet + residuePerSession * archivedBeforeLastDay,
  };
}

/** Simulated days of sessions, archived as they go idle: used_memory's peak and end vs one day's working set. */
export async function simulateDays(
  context: BenchContext,
  archive: ArchiveBackend,
  writes: WeekResults['writes'],
  log: (line: string) => void,
): Promise<WeekResults> {
  const shape = context.quick ? WEEK.quick : WEEK.full;
  const keyPrefix = `bench-tier-${randomUUID().slice(0, 8)}:`;
  const store = await RedisStore.open({ url: context.redisUrl, keyPrefix });
  const redis = new Redis(context.redisUrl);
  const archiver = new Archiver({
    store,
    archive,
    policy: {
      archiveAfterMs: 1,
      ...(writes === 'keyed-window' ? { idempotencyWindowMs: BENCH_IDEMPOTENCY_WINDOW_MS } : {}),
    },
    logger: pino({ level: 'silent' }),
    counts: newArchiveCounts(),
    nodeName: 'bench',
    sessionsPerTick: 64,
    summariesPerTick: 100_000,
  });
  const fill = writes === 'unkeyed' ? fillSessionInStore : fillKeyedSession;
  const writeDay = async (day: string): Promise<void> => {
    for (let s = 0; s < shape.sessions; s++) await fill(store, `${day}/s-${s}`, shape.events);
  };
  const archiveAll = async (): Promise<void> => {
    while ((await archiver.tick()).runs.length > 0);
  };
  try {
    const empty = await usedMemory(redis);
    // The warm-up day: written, archived, then deleted (its residue goes with it; the one-time costs stay).
    await writeDay('warm-up');
    const legacyHot = (await usedMemory(redis)) - empty;
    await archiveAll();
    for (let s = 0; s < shape.sessions; s++) await store.deleteSession(`warm-up/s-${s}`);
    for (let s = 0; s < shape.sessions; s++) await archive.delete(`warm-up/s-${s}`);
    const base = await usedMemory(redis);
    let hotWorkingSet = 0;
    let peak = 0;
    const hotOfDay: number[] = [];
    const afterDay: number[] = [];
    let previous = 0;
    for (let day = 0; day < shape.days; day++) {
      await writeDay(`day-${day}`);
      const used = (await usedMemory(redis)) - base;
      if (day === 0) hotWorkingSet = used;
      peak = Math.max(peak, used);
      // The day is over: its sessions go idle and the archiver moves them out (ticks until one has nothing to do).
      await archiveAll();
      const after = (await usedMemory(redis)) - base;
      hotOfDay.push(used - previous);
      afterDay.push(after);
      previous = after;
      if (day % 10 === 9 || day === shape.days - 1) {
        log(`archive-tier (${writes}): day ${day + 1}: used_memory +${Math.round(used / 1024)} KiB before archiving`);
      }
    }
    const finalUsedMemory = (await usedMemory(redis)) - base;
    const oneTimeCost = base - empty;
    return {
      days: shape.days,
      sessionsPerDay: shape.sessions,
      eventsPerDay: shape.sessions * shape.events,
      writes,
      hotWorkingSet,
      peakUsedMemory: peak,
      finalUsedMemory,
      residuePerSession: finalUsedMemory / (shape.days * shape.sessions),
      oneTimeCost,
      legacy: { hotWorkingSet: legacyHot, peakUsedMemory: peak + oneTimeCost },
      fitted: fitted(hotOfDay, afterDay, shape.sessions),
    };
  } finally {
    await archiver.stop();
    await redis.quit();
    await store.close();
  }
}
