// Restoring an archived prefix (server/archive/restore-run.ts) on each engine (memory, a real Redis) and each archive
// backend (file, PostgreSQL): the export before archiving, after archiving (through the TieredStore) and after the
// restore (the hot store alone) are the same bytes; appends racing the restore are all kept, in order; a restore
// over the limit changes nothing; a session with nothing archived is idle; a restored session archives again; a
// restore that stopped after any step leaves the session exact, and the next run finishes it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, vi } from 'vitest';
import { archiveSession } from '../../server/archive/archive-run.ts';
import { restoreSession, type RestoreRunOptions, type RestoreStep } from '../../server/archive/restore-run.ts';
import { TieredStore } from '../../server/archive/tiered-store.ts';
import type { EventStore } from '../../server/store/event-store.ts';
import { LineageStore } from '../../server/store/lineage/lineage-store.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { it } from '../helpers/fixtures.ts';
import type { ArchiveHarness } from './archive-harness.ts';
import { harnessChoices } from './harness-choices.ts';
import { commitAll, exportBytes, turnDrafts } from './tier-helpers.ts';

const WAIT = { timeout: 10_000, interval: 5 };

const combos = harnessChoices().flatMap((harness) =>
  (['memory', 'redis'] as const).map((engine) => ({ ...harness, engine })),
);

describe.each(combos)('restore on $engine and the $name archive', ({ open, engine }) => {
  let harness: ArchiveHarness;
  let memory: MemoryStore;
  const newSession = (): string => `restore-${randomUUID()}`;

  beforeAll(async () => {
    harness = await open();
    memory = new MemoryStore();
  });
  afterAll(async () => {
    await memory.close();
    await harness.close();
  });

  const hotOf = (redisStore: EventStore): EventStore => (engine === 'memory' ? memory : redisStore);
  const archive = (store: EventStore, sessionId: string, before?: number) =>
    archiveSession({
      store,
      archive: harness.backend,
      sessionId,
      token: `a-${randomUUID()}`,
      segmentEvents: 30,
      ...(before === undefined ? {} : { before }),
    });
  const restore = (store: EventStore, sessionId: string, options: Partial<RestoreRunOptions> = {}) =>
    restoreSession({
      store,
      archive: harness.backend,
      sessionId,
      token: `r-${randomUUID()}`,
      pageEvents: 25,
      ...options,
    });

  /** A session of `turns` turns, archived as far as it goes; its export before archiving. */
  async function archived(store: EventStore, turns: number, cut?: number) {
    const sessionId = newSession();
    const epoch = await commitAll(store, sessionId, turnDrafts(turns));
    const before = await exportBytes(store, sessionId, { limit: 7 });
    expect(await archive(store, sessionId, cut)).toMatchObject({ status: 'archived' });
    expect((await store.head(sessionId)).firstSeq).toBeGreaterThan(0);
    return { sessionId, epoch, before };
  }

  it('reads the same bytes before archiving, after it and after the restore; then archives again', async ({
    redisStore,
  }) => {
    const store = hotOf(redisStore);
    const tiered = new TieredStore(store, harness.backend);
    const { sessionId, epoch, before } = await archived(store, 30);
    const head = await store.head(sessionId);
    const tieredExport = await exportBytes(tiered, sessionId, { limit: 7 });
    expect(tieredExport.bytes.equals(before.bytes)).toBe(true);

    const result = await restore(store, sessionId);
    expect(result).toMatchObject({ status: 'restored', epoch, firstSeq: 0, restored: head.firstSeq, copied: 0 });
    expect(await store.head(sessionId)).toEqual({ epoch, headSeq: head.headSeq });
    expect(await harness.backend.describe(sessionId)).toBeUndefined();
    for (const reader of [store, tiered]) {
      for (const shape of [{ limit: 7 }, { limit: 1000, maxBytes: 900 }]) {
        const after = await exportBytes(reader, sessionId, shape);
        expect(after.bytes.equals(before.bytes)).toBe(true);
        expect([...after.epochs]).toEqual([epoch]);
      }
    }
    expect(await restore(store, sessionId)).toEqual({ status: 'idle' });
    // Restored, then archived again: the archive starts over from seq 0, reads stay the same.
    expect(await archive(store, sessionId)).toMatchObject({ status: 'archived', appended: head.firstSeq });
    expect((await exportBytes(tiered, sessionId, { limit: 7 })).bytes.equals(before.bytes)).toBe(true);
  });

  it('keeps every append that races the restore, in order, whether the swap copies them or stages them', async ({
    redisStore,
  }) => {
    const store = hotOf(redisStore);
    for (const burst of [3, 1200]) {
      const { sessionId, epoch, before } = await archived(store, 20);
      let appended = 0;
      const onStep = async (step: RestoreStep) => {
        if (step !== 'staged' || appended > 0) return;
        // Appends land between the copy and the swap: a few (copied by the swap) or more than one swap copies.
        for (let batch = 0; batch < burst; batch += 100) {
          const count = Math.min(100, burst - batch);
          const events = Array.from({ length: count }, (_, index) => ({
            type: 'test/raced',
            data: { index: batch + index },
          }));
          await commitAll(store, sessionId, [events]);
        }
        appended = burst;
      };
      const result = await restore(store, sessionId, { onStep });
      expect(result).toMatchObject({ status: 'restored', epoch, copied: burst });
      const events = await store.read(sessionId, 0, 100_000);
      expect(events.map((event) => event.seq)).toEqual(events.map((_, seq) => seq));
      const raced = events.slice(before.count);
      expect(raced.map((event) => (event.data as { index: number }).index)).toEqual(
        Array.from({ length: burst }, (_, index) => index),
      );
      const prefix = await exportBytes(store, sessionId, { limit: 7 });
      expect(prefix.bytes.subarray(0, before.bytes.length).equals(before.bytes)).toBe(true);
    }
  });

  it('reads racing the restore read the same events and bytes all along', async ({ redisStore }) => {
    const store = hotOf(redisStore);
    const tiered = new TieredStore(store, harness.backend);
    const { sessionId, before } = await archived(store, 20);
    const events = await tiered.read(sessionId, 0, 100_000);
    let done = false;
    let reads = 0;
    const failures: unknown[] = [];
    const reader = async () => {
      while (!done) {
        const exported = await exportBytes(tiered, sessionId, { limit: 9 });
        if (!exported.bytes.equals(before.bytes)) throw new Error(`a page read differs after ${reads} reads`);
        expect(await tiered.read(sessionId, 0, 100_000)).toEqual(events);
        reads++;
        await new Promise(setImmediate); // the memory engine answers in microtasks: let timers run between reads
      }
    };
    const readers = [reader(), reader()].map((running) => running.catch((error: unknown) => failures.push(error)));
    const onStep = async (step: RestoreStep) => {
      // Each step waits for a read to end after it: the readers read at every stage of the restore, the swap included.
      const at = reads;
      if (step !== 'staged' || at % 3 === 0) await vi.waitFor(() => expect(reads).toBeGreaterThan(at), WAIT);
    };
    const result = await restore(store, sessionId, { onStep });
    const after = reads;
    await vi.waitFor(() => expect(reads).toBeGreaterThan(after), WAIT); // and after it
    done = true;
    await Promise.all(readers);
    expect(failures).toEqual([]);
    expect(result).toMatchObject({ status: 'restored' });
  });

  it('refuses a restore over the limit and changes nothing; force restores it', async ({ redisStore }) => {
    const store = hotOf(redisStore);
    const tiered = new TieredStore(store, harness.backend);
    const { sessionId, before } = await archived(store, 20);
    const head = await store.head(sessionId);
    const cold = await harness.backend.describe(sessionId);
    const events = head.firstSeq!;
    expect(await restore(store, sessionId, { maxEvents: events - 1 })).toEqual({
      status: 'too-large',
      events,
      bytes: cold!.bytes,
      maxEvents: events - 1,
      maxBytes: 256 * 1024 * 1024,
    });
    expect(await restore(store, sessionId, { maxBytes: cold!.bytes - 1 })).toMatchObject({ status: 'too-large' });
    expect(await store.head(sessionId)).toEqual(head);
    expect(await harness.backend.describe(sessionId)).toEqual(cold);
    expect((await exportBytes(tiered, sessionId, { limit: 7 })).bytes.equals(before.bytes)).toBe(true);
    expect(await restore(store, sessionId, { maxEvents: 1, force: true })).toMatchObject({
      status: 'restored',
      restored: events,
    });
  });

  it('is idle with nothing archived or no session, busy while the archive lease is held', async ({ redisStore }) => {
    const store = hotOf(redisStore);
    const sessionId = newSession();
    expect(await restore(store, sessionId)).toEqual({ status: 'idle' });
    await commitAll(store, sessionId, turnDrafts(3));
    expect(await restore(store, sessionId)).toEqual({ status: 'idle' });
    expect(await store.archiveLease.acquire(sessionId, 'archiver', 60_000)).toBe(true);
    expect(await restore(store, sessionId)).toEqual({ status: 'busy' });
    await store.archiveLease.release(sessionId, 'archiver');
  });

  it('a restore stopped after any step leaves the session exact; the next run finishes it', async ({ redisStore }) => {
    const store = hotOf(redisStore);
    const tiered = new TieredStore(store, harness.backend);
    for (const stop of ['planned', 'staged', 'swapped', 'verified'] satisfies RestoreStep[]) {
      const { sessionId, epoch, before } = await archived(store, 12);
      const onStep = (step: RestoreStep) => {
        if (step === stop) throw new Error(`stopped at ${step}`);
      };
      await expect(restore(store, sessionId, { onStep })).rejects.toThrow(`stopped at ${stop}`);
      expect((await exportBytes(tiered, sessionId, { limit: 7 })).bytes.equals(before.bytes)).toBe(true);
      const swapped = stop === 'swapped' || stop === 'verified';
      expect((await store.head(sessionId)).firstSeq === undefined).toBe(swapped);
      expect(await harness.backend.describe(sessionId)).toBeDefined();
      const again = await restore(store, sessionId);
      expect(again).toMatchObject({ status: 'restored', epoch });
      if (swapped) expect(again).toMatchObject({ restored: 0 });
      expect(await harness.backend.describe(sessionId)).toBeUndefined();
      expect((await exportBytes(store, sessionId, { limit: 7 })).bytes.equals(before.bytes)).toBe(true);
    }
  });

  it('restores a session redacted since its prefix was archived (the archive is in a prior epoch)', async ({
    redisStore,
  }) => {
    const store = hotOf(redisStore);
    const tiered = new TieredStore(store, harness.backend);
    const { sessionId, epoch } = await archived(store, 12, 40);
    const events = await tiered.read(sessionId, 0, 10_000);
    const hotSeq = events.findLast((event) => /chunk/.test(event.type))!.seq; // above the archived prefix
    // Through the hot store alone: the archive stays in the epoch the redaction replaced (as a node that died before
    // moving the archive to the new epoch leaves it; the tiered store's redaction moves it).
    const redaction = await store.redactions.redact({ sessionId, seqs: [hotSeq], reason: 'test', by: 'admin' });
    expect(redaction).toMatchObject({ status: 'redacted', seqs: [hotSeq] });
    const now = await tiered.head(sessionId);
    expect(now.epoch).not.toBe(epoch);
    expect((await harness.backend.describe(sessionId))?.epoch).toBe(epoch);
    const before = await exportBytes(tiered, sessionId, { limit: 7 });
    expect(await restore(store, sessionId)).toMatchObject({ status: 'restored', epoch: now.epoch, firstSeq: 0 });
    const after = await exportBytes(store, sessionId, { limit: 7 });
    expect(after.bytes.equals(before.bytes)).toBe(true);
    expect([...after.epochs]).toEqual([now.epoch]);
  });

  it("restores a fork's own archived events: its log starts at its base again, its prefix read from its parent", async ({
    redisStore,
  }) => {
    const store = hotOf(redisStore);
    const reader = LineageStore.over(new TieredStore(store, harness.backend));
    const parentId = newSession();
    const parentEpoch = await commitAll(store, parentId, turnDrafts(4));
    const atSeq = (await store.head(parentId)).headSeq;
    const childId = newSession();
    const fork = await store.forks.create({ parentId, parentEpoch, atSeq, childId, events: [] });
    expect(fork).toMatchObject({ status: 'forked' });
    await commitAll(store, childId, turnDrafts(10, 5));
    const before = await exportBytes(reader, childId, { limit: 7 });
    expect(await archive(store, childId)).toMatchObject({ status: 'archived' });
    expect(await harness.backend.describe(childId)).toMatchObject({ startSeq: atSeq + 1 });
    const result = await restore(store, childId);
    expect(result).toMatchObject({ status: 'restored', firstSeq: atSeq + 1 });
    expect(await store.head(childId)).toMatchObject({ firstSeq: atSeq + 1, headSeq: before.count - 1 });
    expect((await exportBytes(reader, childId, { limit: 7 })).bytes.equals(before.bytes)).toBe(true);
  });
});
