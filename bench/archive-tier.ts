/**
 * `npm run bench -- --only archive-tier`: the archive tier at work (server/archive/), each figure next to a baseline
 * measured in the same run:
 * - a simulated stretch of days (time compressed: a "day" is a batch of sessions written, then the archiver's ticks
 *   with `--archive-after` at 1 ms, so every session goes idle once its day is over): Redis `used_memory` (above the
 *   empty store's) at its highest, next to the hot working set (one day's sessions, before they are archived), while
 *   the total events written grow by the number of days (50× in a full run);
 * - catch-up of a long session (pages of 1,000 events through the `TieredStore`, as the hub's catch-up reads) once
 *   it is archived, next to the same read while it is hot, for each backend.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { Redis } from 'ioredis';
import { RedisStore } from '../server/index.ts';
import type { ArchiveBackend } from '../server/archive/archive-backend.ts';
import { archiveSession } from '../server/archive/archive-run.ts';
import { Archiver } from '../server/archive/archiver.ts';
import { newArchiveCounts } from '../server/archive-metrics.ts';
import { FileArchive } from '../server/archive/file/file-archive.ts';
import { PostgresArchive } from '../server/archive/postgres/pg-archive.ts';
import { TieredStore } from '../server/archive/tiered-store.ts';
import { createTestDatabase, type TestDatabase } from '../test/helpers/postgres.ts';
import { fillSessionInStore } from './baselines/xrange.ts';
import { runArchiveAppend, type ArchiveAppendResults } from './archive-append.ts';
import { atLeast, atMost, type Row } from './report.ts';
import type { BenchContext } from './targets.ts';

const WEEK = { quick: { days: 10, sessions: 8, events: 400 }, full: { days: 50, sessions: 8, events: 1000 } };
const CATCH_UP_EVENTS = { quick: 20_000, full: 100_000 };
const PAGE_EVENTS = 1000;

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? 0);
}

export interface ArchiveTierResults {
  readonly days: number;
  readonly eventsPerDay: number;
  /** Bytes above the empty store's: one day's sessions, hot. */
  readonly hotWorkingSet: number;
  /** Bytes above the empty store's: the highest seen over the days (before each day's archiving). */
  readonly peakUsedMemory: number;
  /** Bytes above the empty store's after the last day was archived. */
  readonly finalUsedMemory: number;
  readonly catchUpEvents: number;
  /** Events/s of paging the session through the tiers: hot, then archived, per backend. */
  readonly catchUp: Readonly<Record<string, { hot: number; cold: number }>>;
  readonly appends: ArchiveAppendResults;
  readonly postgresError?: string;
}

/** Simulated days of sessions, archived as they go idle: used_memory's peak and end vs one day's working set. */
async function simulateDays(
  context: BenchContext,
  archive: ArchiveBackend,
  log: (line: string) => void,
): Promise<Pick<ArchiveTierResults, 'days' | 'eventsPerDay' | 'hotWorkingSet' | 'peakUsedMemory' | 'finalUsedMemory'>> {
  const shape = context.quick ? WEEK.quick : WEEK.full;
  const keyPrefix = `bench-tier-${randomUUID().slice(0, 8)}:`;
  const store = await RedisStore.open({ url: context.redisUrl, keyPrefix });
  const redis = new Redis(context.redisUrl);
  const archiver = new Archiver({
    store,
    archive,
    policy: { archiveAfterMs: 1 },
    logger: pino({ level: 'silent' }),
    counts: newArchiveCounts(),
    nodeName: 'bench',
    sessionsPerTick: 64,
    summariesPerTick: 100_000,
  });
  try {
    const base = await usedMemory(redis);
    let hotWorkingSet = 0;
    let peak = 0;
    for (let day = 0; day < shape.days; day++) {
      for (let s = 0; s < shape.sessions; s++) await fillSessionInStore(store, `day-${day}/s-${s}`, shape.events);
      const used = (await usedMemory(redis)) - base;
      if (day === 0) hotWorkingSet = used;
      peak = Math.max(peak, used);
      // The day is over: its sessions go idle and the archiver moves them out (ticks until one has nothing to do).
      while ((await archiver.tick()).runs.length > 0);
      if (day % 10 === 9 || day === shape.days - 1) {
        log(`archive-tier: day ${day + 1}: used_memory +${Math.round(used / 1024)} KiB before archiving`);
      }
    }
    const finalUsedMemory = (await usedMemory(redis)) - base;
    return {
      days: shape.days,
      eventsPerDay: shape.sessions * shape.events,
      hotWorkingSet,
      peakUsedMemory: peak,
      finalUsedMemory,
    };
  } finally {
    await archiver.stop();
    await redis.quit();
    await store.close();
  }
}

async function timeCatchUp(store: TieredStore, sessionId: string, count: number): Promise<number> {
  const start = performance.now();
  let seq = 0;
  while (seq < count) {
    const page = await store.readStoredPage(sessionId, seq, PAGE_EVENTS);
    if (page.bodies.length === 0) throw new Error(`archive-tier: empty page at ${seq}`);
    seq += page.bodies.length;
  }
  return (count * 1000) / (performance.now() - start);
}

/** Catch-up of one long session through the tiers, hot then archived, on `archive`. */
async function catchUpOn(context: BenchContext, archive: ArchiveBackend, events: number) {
  const store = await RedisStore.open({ url: context.redisUrl, keyPrefix: `bench-cu-${randomUUID().slice(0, 8)}:` });
  try {
    const tiered = new TieredStore(store, archive);
    const sessionId = 'long/session';
    await fillSessionInStore(store, sessionId, events);
    await timeCatchUp(tiered, sessionId, events); // warm-up
    const hot = await timeCatchUp(tiered, sessionId, events);
    const run = await archiveSession({ store, archive, sessionId, token: 'bench', segmentEvents: 4096 });
    if (run.status !== 'archived' || run.cut !== events) throw new Error(`archive-tier: run ${JSON.stringify(run)}`);
    const cold = await timeCatchUp(tiered, sessionId, events);
    return { hot, cold };
  } finally {
    await store.close();
  }
}

export async function runArchiveTier(
  context: BenchContext,
  log: (line: string) => void,
): Promise<{ rows: Row[]; raw: ArchiveTierResults }> {
  const dir = await mkdtemp(join(tmpdir(), 'sh-bench-tier-'));
  let database: TestDatabase | undefined;
  let postgresError: string | undefined;
  try {
    const file = new FileArchive({ dir: join(dir, 'week') });
    await file.open();
    const week = await simulateDays(context, file, log);
    await file.close();
    const events = context.quick ? CATCH_UP_EVENTS.quick : CATCH_UP_EVENTS.full;
    const catchUp: Record<string, { hot: number; cold: number }> = {};
    const cold = new FileArchive({ dir: join(dir, 'catch-up') });
    await cold.open();
    catchUp['file'] = await catchUpOn(context, cold, events);
    await cold.close();
    try {
      database = await createTestDatabase('sh_bench_tier');
      const pg = new PostgresArchive({ url: database.url });
      await pg.open();
      catchUp['postgres'] = await catchUpOn(context, pg, events);
      await pg.close();
    } catch (error) {
      postgresError = error instanceof Error ? error.message : String(error);
      log(`archive-tier: no PostgreSQL figure (${postgresError})`);
    }
    const appends = await runArchiveAppend(context);
    log(`archive-tier: appends at 200/s: ${appends.archiveRuns} archive runs during the run with the archiver`);
    const raw: ArchiveTierResults = {
      ...week,
      appends,
      catchUpEvents: events,
      catchUp,
      ...(postgresError === undefined ? {} : { postgresError }),
    };
    const memoryRatio = week.peakUsedMemory / week.hotWorkingSet;
    const rows: Row[] = [
      {
        scenario: 'archive-tier',
        metric: `Redis used_memory at its peak, ${week.days}× the events written (archive on)`,
        unit: 'bytes',
        hub: week.peakUsedMemory,
        baselineName: 'hot working set (one day, hot)',
        baseline: week.hotWorkingSet,
        target: '≤ 1.2× baseline',
        met: atMost(memoryRatio, 1.2),
      },
      {
        scenario: 'archive-tier',
        metric: `append p99 at 200/s over ${appends.seconds} s, archiver running (${appends.archiveRuns} runs)`,
        unit: 'ms',
        hub: appends.withArchiver.p99Ms,
        baselineName: 'the same load, no archiver',
        baseline: appends.without.p99Ms,
        target: '≤ 1.5× baseline (noise)',
        met: atMost(appends.withArchiver.p99Ms / appends.without.p99Ms, 1.5),
      },
      ...Object.entries(catchUp).map(([backend, figures]): Row => ({
        scenario: 'archive-tier',
        metric: `catch-up of a ${events.toLocaleString('en-US')}-event session, archived (${backend})`,
        unit: 'events/s',
        hub: figures.cold,
        baselineName: 'the same session hot',
        baseline: figures.hot,
        target: '≥ 0.5× baseline',
        met: atLeast(figures.cold / figures.hot, 0.5),
      })),
    ];
    return { rows, raw };
  } finally {
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  }
}
