/**
 * `npm run bench -- --only archive-tier`: the archive tier at work (server/archive/), each figure next to a baseline
 * measured in the same run:
 * - a simulated stretch of days (bench/archive-week.ts): Redis `used_memory` at its highest next to the hot working
 *   set (one day's sessions, before they are archived), while the total events written grow by the number of days
 *   (50× in a full run); once with commits of 1,000 events without keys, once with keyed appends of 10 (as the SDK
 *   writes: every append keeps its idempotency key in Redis), and once more keyed with an idempotency window
 *   (compressed like the rest of the simulated time); and what stays of one archived session, key by key
 *   (bench/archive-residue.ts);
 * - catch-up of a long session (pages of 1,000 events through the `TieredStore`, as the hub's catch-up reads) once
 *   it is archived (a fresh backend: nothing cached), next to the same events in a twin session kept hot, in rounds
 *   back to back, for each backend;
 * - a hub node's append p99 while its archiver runs (bench/archive-append.ts).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RedisStore } from '../server/index.ts';
import type { ArchiveBackend } from '../server/archive/archive-backend.ts';
import { archiveSession } from '../server/archive/archive-run.ts';
import { FileArchive } from '../server/archive/file/file-archive.ts';
import { PostgresArchive } from '../server/archive/postgres/pg-archive.ts';
import { TieredStore } from '../server/archive/tiered-store.ts';
import { createTestDatabase, type TestDatabase } from '../test/helpers/postgres.ts';
import { fillSessionInStore } from './baselines/xrange.ts';
import { segmentsOf, timeDecodeFloor } from './decode-floor.ts';
import { runArchiveAppend, type ArchiveAppendResults } from './archive-append.ts';
import { measureResidue, type ResidueResults } from './archive-residue.ts';
import { KEYED_APPEND_EVENTS, simulateDays, type WeekResults } from './archive-week.ts';
import { atLeast, atMost, type Row } from './report.ts';
import { median } from './scenarios/catchup-rounds.ts';
import type { BenchContext } from './targets.ts';

const CATCH_UP_EVENTS = { quick: 20_000, full: 100_000 };
const PAGE_EVENTS = 1000;

export interface ArchiveTierResults {
  /** The days written as commits of 1,000 events without keys, then as keyed appends of 10 (as the SDK writes). */
  readonly week: WeekResults;
  readonly keyedWeek: WeekResults;
  /** The keyed days again, archived with an idempotency window (compressed: `BENCH_IDEMPOTENCY_WINDOW_MS`). */
  readonly keyedWindowWeek: WeekResults;
  /** What stays in Redis of one archived session, key by key (bench/archive-residue.ts). */
  readonly residue: Readonly<Record<WeekResults['writes'], ResidueResults>>;
  readonly catchUpEvents: number;
  /** Events/s of paging the session through the tiers: hot, then archived, per backend. */
  readonly catchUp: Readonly<Record<string, CatchUpFigures>>;
  readonly appends: ArchiveAppendResults;
  readonly postgresError?: string;
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

/**
 * Events/s of a catch-up, hot and archived: medians over the rounds, and the median of the rounds' ratios; the
 * floor (bench/decode-floor.ts: decoding the session's segments alone, and their brotli decompression alone,
 * synchronous) in the same rounds.
 */
export interface CatchUpFigures {
  readonly hot: number;
  readonly cold: number;
  readonly pairedRatio: number;
  readonly decode: number;
  readonly decompressSync: number;
}

/**
 * Catch-up of one long session through the tiers, archived, next to the same events in a twin session kept hot,
 * in rounds (hot, then archived, back to back: the shared VM's load moves both alike). Each archived read goes
 * through a fresh backend (`openArchive`): nothing of the session in its cache of decoded segments, as for the
 * first reader of a session archived long ago.
 */
export async function catchUpOn(
  context: BenchContext,
  openArchive: () => Promise<ArchiveBackend>,
  events: number,
): Promise<CatchUpFigures> {
  const store = await RedisStore.open({ url: context.redisUrl, keyPrefix: `bench-cu-${randomUUID().slice(0, 8)}:` });
  try {
    await fillSessionInStore(store, 'hot/session', events);
    await fillSessionInStore(store, 'cold/session', events);
    const writer = await openArchive();
    const run = await archiveSession({
      store,
      archive: writer,
      sessionId: 'cold/session',
      token: 'bench',
      segmentEvents: 4096,
    });
    await writer.close();
    if (run.status !== 'archived' || run.cut !== events) throw new Error(`archive-tier: run ${JSON.stringify(run)}`);
    const hot = new TieredStore(store, writer);
    await timeCatchUp(hot, 'hot/session', events); // warm-up
    const segments = await segmentsOf(store, 'hot/session', events);
    const rounds = { hot: [] as number[], cold: [] as number[], ratio: [] as number[] };
    const floors = { decode: [] as number[], decompressSync: [] as number[] };
    for (let round = 0; round < (context.quick ? 1 : 3); round++) {
      rounds.hot.push(await timeCatchUp(hot, 'hot/session', events));
      const archive = await openArchive();
      try {
        rounds.cold.push(await timeCatchUp(new TieredStore(store, archive), 'cold/session', events));
      } finally {
        await archive.close();
      }
      rounds.ratio.push(rounds.cold.at(-1)! / rounds.hot.at(-1)!);
      const floor = await timeDecodeFloor(segments);
      floors.decode.push(floor.decode);
      floors.decompressSync.push(floor.decompressSync);
    }
    return {
      hot: median(rounds.hot),
      cold: median(rounds.cold),
      pairedRatio: median(rounds.ratio),
      decode: median(floors.decode),
      decompressSync: median(floors.decompressSync),
    };
  } finally {
    await store.close();
  }
}

/** Opens a fresh `FileArchive` on `dir` each call (nothing cached). */
export function fileOpener(dir: string): () => Promise<ArchiveBackend> {
  return async () => {
    const file = new FileArchive({ dir });
    await file.open();
    return file;
  };
}

/** Opens a fresh `PostgresArchive` on `url` each call (nothing cached, a pool of its own). */
export function postgresOpener(url: string): () => Promise<ArchiveBackend> {
  return async () => {
    const pg = new PostgresArchive({ url });
    await pg.open();
    return pg;
  };
}

/** How a simulated stretch of days wrote its sessions, as a row names it. */
const WRITES: Readonly<Record<WeekResults['writes'], string>> = {
  unkeyed: 'unkeyed commits of 1,000',
  keyed: `keyed appends of ${KEYED_APPEND_EVENTS}`,
  'keyed-window': `keyed appends of ${KEYED_APPEND_EVENTS}, idempotency window (compressed)`,
};

export async function runArchiveTier(
  context: BenchContext,
  log: (line: string) => void,
): Promise<{ rows: Row[]; raw: ArchiveTierResults }> {
  const dir = await mkdtemp(join(tmpdir(), 'sh-bench-tier-'));
  let database: TestDatabase | undefined;
  let postgresError: string | undefined;
  try {
    const weeks: WeekResults[] = [];
    for (const writes of ['unkeyed', 'keyed', 'keyed-window'] as const) {
      const file = new FileArchive({ dir: join(dir, `week-${writes}`) });
      await file.open();
      weeks.push(await simulateDays(context, file, writes, log));
      await file.close();
    }
    const [week, keyedWeek, keyedWindowWeek] = weeks as [WeekResults, WeekResults, WeekResults];
    const residueSessions = context.quick ? 5 : 20;
    const residue = {
      unkeyed: await measureResidue(context.redisUrl, residueSessions, 1000, 'unkeyed'),
      keyed: await measureResidue(context.redisUrl, residueSessions, 1000, 'keyed'),
      'keyed-window': await measureResidue(context.redisUrl, residueSessions, 1000, 'keyed-window'),
    };
    for (const [writes, figures] of Object.entries(residue)) {
      const keys = figures.keys.map((key) => `${key.key.split(':').at(-1)} ${key.memoryUsage} B`).join(', ');
      log(`archive-tier: what stays of an archived session (${writes}): ${keys}`);
    }
    const events = context.quick ? CATCH_UP_EVENTS.quick : CATCH_UP_EVENTS.full;
    const catchUp: Record<string, CatchUpFigures> = {};
    const fileDir = join(dir, 'catch-up');
    catchUp['file'] = await catchUpOn(context, fileOpener(fileDir), events);
    try {
      database = await createTestDatabase('sh_bench_tier');
      const url = database.url;
      catchUp['postgres'] = await catchUpOn(context, postgresOpener(url), events);
    } catch (error) {
      postgresError = error instanceof Error ? error.message : String(error);
      log(`archive-tier: no PostgreSQL figure (${postgresError})`);
    }
    const appends = await runArchiveAppend(context);
    for (const figures of weeks) {
      log(
        `archive-tier (${figures.writes}): ${Math.round(figures.residuePerSession)} B of used_memory per archived session; one-time cost ${Math.round(figures.oneTimeCost / 1024)} KiB; read the old way ${figures.legacy.peakUsedMemory} / ${figures.legacy.hotWorkingSet}`,
      );
    }
    log(`archive-tier: appends at 200/s: ${appends.archiveRuns} archive runs during the run with the archiver`);
    const raw: ArchiveTierResults = {
      week,
      keyedWeek,
      keyedWindowWeek,
      residue,
      appends,
      catchUpEvents: events,
      catchUp,
      ...(postgresError === undefined ? {} : { postgresError }),
    };
    const memoryRow = (figures: WeekResults): Row => ({
      scenario: 'archive-tier',
      metric: `Redis used_memory on day ${figures.days} (${figures.days}× the events; ${WRITES[figures.writes]}; fitted, ${Math.round(figures.fitted.residuePerSession)} B per archived session; highest read ${(figures.peakUsedMemory / figures.hotWorkingSet).toFixed(2)}×)`,
      unit: 'bytes',
      hub: figures.fitted.peakUsedMemory,
      baselineName: 'hot working set (a day, hot; fitted)',
      baseline: figures.fitted.hotWorkingSet,
      target: '≤ 1.2× baseline',
      met: atMost(figures.fitted.peakUsedMemory / figures.fitted.hotWorkingSet, 1.2),
    });
    const rows: Row[] = [
      memoryRow(week),
      memoryRow(keyedWeek),
      memoryRow(keyedWindowWeek),
      {
        scenario: 'archive-tier',
        metric: `append p99 at 200/s over ${appends.seconds} s, archiver running (${appends.archiveRuns} runs; median round of ${appends.rounds})`,
        unit: 'ms',
        hub: appends.withArchiver.p99Ms,
        baselineName: 'the same load, no archiver',
        baseline: appends.without.p99Ms,
        target: '≤ 1.5× baseline (noise)',
        met: atMost(appends.p99PairedRatio, 1.5),
      },
      {
        scenario: 'archive-tier',
        metric: `append p99 at 200/s, a dummy CPU load of the archiver's size instead (floor; median round)`,
        unit: 'ms',
        hub: appends.floor.p99Ms,
        baselineName: 'the same load, no archiver',
        baseline: appends.floorBaseline.p99Ms,
        target: '',
        met: null,
      },
      ...Object.entries(catchUp).map(([backend, figures]): Row => ({
        scenario: 'archive-tier',
        metric: `catch-up of a ${events.toLocaleString('en-US')}-event session, archived (${backend}; paired ratio ${figures.pairedRatio.toFixed(2)}×)`,
        unit: 'events/s',
        hub: figures.cold,
        baselineName: 'the same session hot',
        baseline: figures.hot,
        target: '≥ 0.5× baseline',
        met: atLeast(figures.pairedRatio, 0.5),
      })),
    ];
    return { rows, raw };
  } finally {
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  }
}
