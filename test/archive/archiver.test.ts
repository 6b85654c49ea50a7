// The Archiver service (server/archive/archiver.ts): picks idle sessions and sessions over the hot limits, archives
// them (bounded per tick), counts what it did for the metrics, and when the archive refuses writes trims nothing,
// counts every failure and logs one line per outage. Memory engine (its clock is the archiver's `now`), file and
// PostgreSQL archives.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Logger } from '../../server/logger.ts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newArchiveCounts } from '../../server/archive-metrics.ts';
import { archiveBackendFor } from '../../server/archive/archive-location.ts';
import { Archiver, type ArchivePolicy } from '../../server/archive/archiver.ts';
import { TieredStore } from '../../server/archive/tiered-store.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { createTestDatabase } from '../helpers/postgres.ts';
import type { ArchiveHarness } from './archive-harness.ts';
import { openFileHarness } from './file-harness.ts';
import { commitAll, exportBytes, turnDrafts } from './tier-helpers.ts';

/** A logger whose JSON lines are kept in `lines`. */
function recordingLogger(): { logger: Logger; lines: { level: number; msg: string }[] } {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line !== '') lines.push(JSON.parse(line) as never);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

describe('Archiver', () => {
  let harness: ArchiveHarness;
  beforeAll(async () => {
    harness = await openFileHarness();
  });
  afterAll(async () => {
    await harness.close();
  });

  function archiverOn(store: MemoryStore, policy: ArchivePolicy, now: () => number, sessionsPerTick = 8) {
    const counts = newArchiveCounts();
    const { logger, lines } = recordingLogger();
    const archiver = new Archiver({
      store,
      archive: harness.backend,
      policy,
      logger,
      counts,
      nodeName: 'test-node',
      now,
      sessionsPerTick,
    });
    return { archiver, counts, lines };
  }

  test('archives idle sessions (at most sessionsPerTick a tick), leaves active ones, reads stay the same', async () => {
    const store = new MemoryStore();
    const tiered = new TieredStore(store, harness.backend);
    const stem = `idle-${randomUUID()}/`;
    for (let i = 0; i < 3; i++) await commitAll(store, `${stem}${i}`, turnDrafts(3));
    const before = await Promise.all([0, 1, 2].map((i) => exportBytes(tiered, `${stem}${i}`)));
    let clock = Date.now();
    const { archiver, counts } = archiverOn(store, { archiveAfterMs: 60_000 }, () => clock, 2);
    expect((await archiver.tick()).runs).toEqual([]); // nothing idle yet
    clock += 61_000;
    const first = await archiver.tick();
    expect(first.runs).toHaveLength(2);
    expect(first.runs.every((run) => run.status === 'archived')).toBe(true);
    const second = await archiver.tick();
    expect(second.runs.map((run) => run.status)).toEqual(['archived']);
    expect(counts).toMatchObject({ runs: 3, eventsArchived: before.reduce((sum, b) => sum + b.count, 0), errors: 0 });
    for (let i = 0; i < 3; i++) {
      expect(await store.head(`${stem}${i}`)).toMatchObject({ firstSeq: before[i]!.count });
      expect((await exportBytes(tiered, `${stem}${i}`)).bytes.equals(before[i]!.bytes)).toBe(true);
    }
    await archiver.tick(); // a new pass: the gauges of the finished one (as it was after its runs)
    expect(counts).toMatchObject({ archivedSessions: 3, hotEvents: 0 });
    expect(await archiver.tick()).toEqual({ looked: 3, runs: [] }); // all archived: nothing hot to archive
    await store.close();
  });

  test('sessions stuck inside a turn do not take the runs of the others; they are tried again once they move', async () => {
    const store = new MemoryStore();
    const stem = `stuck-${randomUUID()}/`;
    const open = turnDrafts(1).slice(0, 2); // turn/start, step/start, chunks: the turn never ends
    for (let i = 0; i < 3; i++) await commitAll(store, `${stem}open-${i}`, open);
    const { archiver } = archiverOn(store, { archiveAfterMs: 1 }, () => Date.now() + 60_000, 2);
    // The stuck ones are the most overdue (written first): the first tick spends its runs on them.
    const first = await archiver.tick();
    expect(first.runs.map((run) => run.status)).toEqual(['idle', 'idle']);
    await commitAll(store, `${stem}done`, turnDrafts(2));
    const runs = [...(await archiver.tick()).runs, ...(await archiver.tick()).runs];
    expect(runs).toContainEqual({ sessionId: `${stem}done`, status: 'archived' });
    expect(await store.head(`${stem}done`)).toHaveProperty('firstSeq');
    // A stuck session whose turn ends is archived at the next pass.
    await commitAll(store, `${stem}open-0`, turnDrafts(1).slice(2));
    const later = [...(await archiver.tick()).runs, ...(await archiver.tick()).runs];
    expect(later).toContainEqual({ sessionId: `${stem}open-0`, status: 'archived' });
    await store.close();
  });

  test('archives a session over hotMaxEvents down to about half, at a turn boundary', async () => {
    const store = new MemoryStore();
    const sessionId = `big-${randomUUID()}`;
    await commitAll(store, sessionId, turnDrafts(20));
    const { headSeq } = await store.head(sessionId);
    const { archiver } = archiverOn(store, { archiveAfterMs: 3_600_000, hotMaxEvents: 40 }, Date.now);
    const tick = await archiver.tick();
    expect(tick.runs).toEqual([{ sessionId, status: 'archived' }]);
    const head = await store.head(sessionId);
    const hot = headSeq + 1 - (head.firstSeq ?? 0);
    expect(hot).toBeGreaterThanOrEqual(20);
    expect(hot).toBeLessThan(30);
    await store.close();
  });

  test('an archive refusing writes: nothing trimmed, appends go on, every failure counted, one log line', async () => {
    const database = await createTestDatabase('sh_archiver_ro');
    const setup = archiveBackendFor(database.url);
    await setup.open();
    await setup.close();
    await database.admin(`ALTER DATABASE ${database.name} SET default_transaction_read_only = on`);
    const archive = archiveBackendFor(database.url);
    await archive.open();
    const store = new MemoryStore();
    try {
      const stem = `ro-${randomUUID()}/`;
      for (let i = 0; i < 2; i++) await commitAll(store, `${stem}${i}`, turnDrafts(2));
      const counts = newArchiveCounts();
      const { logger, lines } = recordingLogger();
      const archiver = new Archiver({
        store,
        archive,
        policy: { archiveAfterMs: 1 },
        logger,
        counts,
        nodeName: 'n',
        now: () => Date.now() + 10_000,
      });
      await archiver.tick();
      await archiver.tick();
      expect(counts.errors).toBe(4); // two sessions, two ticks (one pass each)
      expect(lines.filter((line) => line.level >= 50)).toHaveLength(1);
      for (let i = 0; i < 2; i++) expect(await store.head(`${stem}${i}`)).not.toHaveProperty('firstSeq');
      await commitAll(store, `${stem}0`, turnDrafts(1, 3));
    } finally {
      await store.close();
      await archive.close();
      await database.drop();
    }
  });
});
