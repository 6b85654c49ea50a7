/**
 * `npm run bench -- --only archive`: the two archive backends (server/archive/) on the events of one session, each
 * figure next to a baseline measured in the same run:
 * - write: archiving a session in appends of 4,096 events (what the archiver hands a backend), events/s; the file
 *   backend next to plain files of the same bytes (one write + fsync + rename per 4,096 events, no compression or
 *   checksum), PostgreSQL next to the file backend;
 * - read: reading the whole archived session in pages of 1,000 events, events/s, next to the hot read of the same
 *   events from Redis (`readStoredPage`: XRANGE pages, the hub's catch-up read) in the same run.
 * The session is committed to Redis first (not measured); the archive gets exactly the stored bodies and times.
 */
import { mkdtemp, open, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RedisStore } from '../server/index.ts';
import type { ArchiveBackend, ArchiveSegment } from '../server/archive/archive-backend.ts';
import { FileArchive } from '../server/archive/file/file-archive.ts';
import { PostgresArchive } from '../server/archive/postgres/pg-archive.ts';
import { createTestDatabase, type TestDatabase } from '../test/helpers/postgres.ts';
import { fillSessionInStore } from './baselines/xrange.ts';
import { atLeast, type Row } from './report.ts';
import type { BenchContext } from './targets.ts';

const EVENTS = { quick: 20_000, full: 100_000 };
const ROUNDS = { quick: 1, full: 5 };
const APPEND_EVENTS = 4096;
const PAGE_EVENTS = 1000;
const PAGE_BYTES = 4 * 1024 * 1024;

interface StoredRun {
  readonly epoch: string;
  readonly bodies: readonly Uint8Array[];
  readonly times: readonly number[];
}

export interface ArchiveBenchResults {
  readonly events: number;
  readonly bodyBytes: number;
  /** Medians of the rounds, events/s. */
  readonly fileWrite: number;
  readonly plainFileWrite: number;
  readonly fileRead: number;
  readonly redisRead: number;
  readonly postgresWrite: number | null;
  readonly postgresRead: number | null;
  /** Medians of each round's ratio to the Redis read measured next to it (the load on a shared VM moves both). */
  readonly fileReadPairedRatio: number;
  readonly postgresReadPairedRatio: number | null;
  /** Bytes on disk of the file archive per byte of bodies. */
  readonly fileCompression: number;
  readonly postgresError?: string;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function readRedis(store: RedisStore, sessionId: string, count: number): Promise<StoredRun> {
  const bodies: Uint8Array[] = [];
  const times: number[] = [];
  let epoch = '';
  while (bodies.length < count) {
    const page = await store.readStoredPage(sessionId, bodies.length, PAGE_EVENTS);
    if (page.bodies.length === 0 || page.epoch === undefined) throw new Error('archive bench: short Redis read');
    epoch = page.epoch;
    bodies.push(...page.bodies);
    times.push(...page.times);
  }
  return { epoch, bodies, times };
}

/** Events/s of paging the whole session out of Redis (the hot read). */
async function timeRedisRead(store: RedisStore, sessionId: string, count: number): Promise<number> {
  const start = performance.now();
  let seq = 0;
  while (seq < count) seq += (await store.readStoredPage(sessionId, seq, PAGE_EVENTS)).bodies.length;
  return (count * 1000) / (performance.now() - start);
}

/** Events/s of archiving the session in appends of 4,096 events. */
async function timeWrite(backend: ArchiveBackend, sessionId: string, stored: StoredRun): Promise<number> {
  const start = performance.now();
  for (let first = 0; first < stored.bodies.length; first += APPEND_EVENTS) {
    const segment: ArchiveSegment = {
      sessionId,
      epoch: stored.epoch,
      firstSeq: first,
      bodies: stored.bodies.slice(first, first + APPEND_EVENTS),
      times: stored.times.slice(first, first + APPEND_EVENTS),
    };
    await backend.append(segment);
  }
  return (stored.bodies.length * 1000) / (performance.now() - start);
}

/** Events/s of reading the archived session in pages of 1,000 (from a fresh instance: nothing cached). */
async function timeRead(backend: ArchiveBackend, sessionId: string, count: number): Promise<number> {
  const start = performance.now();
  let seq = 0;
  while (seq < count) {
    const page = await backend.read(sessionId, seq, PAGE_EVENTS, PAGE_BYTES);
    if (page.bodies.length === 0) throw new Error(`archive bench: empty page at ${seq}`);
    seq += page.bodies.length;
  }
  return (count * 1000) / (performance.now() - start);
}

/** The floor of the file backend's write: the same bodies as plain files, written, fsynced and renamed per append. */
async function timePlainFiles(dir: string, stored: StoredRun): Promise<number> {
  const start = performance.now();
  for (let first = 0; first < stored.bodies.length; first += APPEND_EVENTS) {
    const path = join(dir, `plain-${first}`);
    const handle = await open(`${path}.tmp`, 'w');
    await handle.writeFile(Buffer.concat(stored.bodies.slice(first, first + APPEND_EVENTS)));
    await handle.sync();
    await handle.close();
    await rename(`${path}.tmp`, path);
  }
  const dirHandle = await open(dir, 'r');
  await dirHandle.sync();
  await dirHandle.close();
  return (stored.bodies.length * 1000) / (performance.now() - start);
}

async function diskBytes(dir: string): Promise<number> {
  const { readdir, stat } = await import('node:fs/promises');
  let total = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

/** `events` overrides the session's size (the bench tier's harness test runs a tiny one). */
export async function runArchiveBackends(
  context: BenchContext,
  log: (line: string) => void,
  events = context.quick ? EVENTS.quick : EVENTS.full,
): Promise<{ rows: Row[]; raw: ArchiveBenchResults }> {
  const rounds = context.quick ? ROUNDS.quick : ROUNDS.full;
  const store = await RedisStore.open({ url: context.redisUrl });
  const dir = await mkdtemp(join(tmpdir(), 'sh-bench-archive-'));
  let database: TestDatabase | undefined;
  let postgresError: string | undefined;
  try {
    const sessionId = `bench-archive-${Date.now()}`;
    await fillSessionInStore(store, sessionId, events);
    const stored = await readRedis(store, sessionId, events);
    const bodyBytes = stored.bodies.reduce((sum, body) => sum + body.byteLength, 0);
    try {
      database = await createTestDatabase('sh_bench_archive');
    } catch (error) {
      postgresError = error instanceof Error ? error.message : String(error);
      log(`archive: no PostgreSQL, file backend only (${postgresError})`);
    }
    const figures = {
      fileWrite: [],
      plainFileWrite: [],
      fileRead: [],
      redisRead: [],
      pgWrite: [],
      pgRead: [],
      fileRatio: [],
      pgRatio: [],
    } as Record<string, number[]>;
    let fileCompression = 0;
    for (let round = 0; round < rounds; round++) {
      const roundDir = join(dir, `round-${round}`);
      const file = new FileArchive({ dir: roundDir });
      await file.open();
      figures['plainFileWrite']!.push(await timePlainFiles(file.dir, stored));
      figures['fileWrite']!.push(await timeWrite(file, sessionId, stored));
      fileCompression = (await diskBytes(join(roundDir, 'sessions'))) / bodyBytes;
      const fileReader = new FileArchive({ dir: roundDir });
      await fileReader.open();
      figures['redisRead']!.push(await timeRedisRead(store, sessionId, events));
      figures['fileRead']!.push(await timeRead(fileReader, sessionId, events));
      figures['fileRatio']!.push(figures['fileRead']!.at(-1)! / figures['redisRead']!.at(-1)!);
      if (database !== undefined) {
        const pg = new PostgresArchive({ url: database.url });
        await pg.open();
        figures['pgWrite']!.push(await timeWrite(pg, `${sessionId}-${round}`, stored));
        figures['pgRead']!.push(await timeRead(pg, `${sessionId}-${round}`, events));
        figures['pgRatio']!.push(figures['pgRead']!.at(-1)! / figures['redisRead']!.at(-1)!);
        await pg.close();
      }
      log(
        `archive round ${round + 1}: file write ${Math.round(figures['fileWrite']!.at(-1)!)}/s, read ${Math.round(figures['fileRead']!.at(-1)!)}/s; Redis read ${Math.round(figures['redisRead']!.at(-1)!)}/s; postgres write ${Math.round(figures['pgWrite']!.at(-1) ?? 0)}/s, read ${Math.round(figures['pgRead']!.at(-1) ?? 0)}/s`,
      );
    }
    const pgWrite = figures['pgWrite']!.length > 0 ? median(figures['pgWrite']!) : null;
    const pgRead = figures['pgRead']!.length > 0 ? median(figures['pgRead']!) : null;
    const raw: ArchiveBenchResults = {
      events,
      bodyBytes,
      fileWrite: median(figures['fileWrite']!),
      plainFileWrite: median(figures['plainFileWrite']!),
      fileRead: median(figures['fileRead']!),
      redisRead: median(figures['redisRead']!),
      postgresWrite: pgWrite,
      postgresRead: pgRead,
      fileReadPairedRatio: median(figures['fileRatio']!),
      postgresReadPairedRatio: figures['pgRatio']!.length > 0 ? median(figures['pgRatio']!) : null,
      fileCompression,
      ...(postgresError === undefined ? {} : { postgresError }),
    };
    return { rows: archiveRows(raw), raw };
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
    await database?.drop();
  }
}

function archiveRows(raw: ArchiveBenchResults): Row[] {
  const row = (metric: string, hub: number | null, baselineName: string | null, baseline: number | null): Row => ({
    scenario: 'archive',
    metric,
    unit: 'events/s',
    hub,
    baselineName,
    baseline,
    target: '',
    met: null,
  });
  return [
    {
      ...row('file archive write, appends of 4,096', raw.fileWrite, 'plain files, fsync each', raw.plainFileWrite),
      target: '≥ 100,000/s',
      met: atLeast(raw.fileWrite, 100_000),
    },
    {
      ...row('file archive read, pages of 1,000', raw.fileRead, 'Redis readStoredPage (XRANGE)', raw.redisRead),
      target: '≥ 0.5× Redis (paired)',
      met: atLeast(raw.fileReadPairedRatio, 0.5),
    },
    { ...row('file read / Redis read, median of paired rounds', raw.fileReadPairedRatio, null, null), unit: '×' },
    row('postgres archive write, appends of 4,096', raw.postgresWrite, 'file archive write', raw.fileWrite),
    {
      ...row('postgres archive read, pages of 1,000', raw.postgresRead, 'Redis readStoredPage (XRANGE)', raw.redisRead),
      target: '≥ 0.5× Redis (paired)',
      met: atLeast(raw.postgresReadPairedRatio, 0.5),
    },
    {
      ...row('postgres read / Redis read, median of paired rounds', raw.postgresReadPairedRatio, null, null),
      unit: '×',
    },
  ];
}
