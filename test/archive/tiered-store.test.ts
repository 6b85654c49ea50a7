// The TieredStore (server/archive/tiered-store.ts) on a real Redis and each archive backend: once a session's prefix
// is archived and trimmed (archive-run.ts), every read returns the same seqs, times and bytes as before, across the
// tier boundary and in pages bounded by bytes; the tiers never mix epochs; delete removes both tiers.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { archiveSession } from '../../server/archive/archive-run.ts';
import type { ArchiveBackend } from '../../server/archive/archive-backend.ts';
import { TieredStore } from '../../server/archive/tiered-store.ts';
import { StoreTrimmedError } from '../../server/store/trimmed-error.ts';
import { it } from '../helpers/fixtures.ts';
import type { ArchiveHarness } from './archive-harness.ts';
import { harnessChoices } from './harness-choices.ts';
import { commitAll, exportBytes, turnDrafts } from './tier-helpers.ts';

describe.each(harnessChoices())('TieredStore on redis and the $name archive', ({ open }) => {
  let harness: ArchiveHarness;
  const newSession = (): string => `tier-${randomUUID()}`;
  const token = (): string => `test-${randomUUID()}`;

  beforeAll(async () => {
    harness = await open();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('reads the same bytes before and after archiving, in any page size, across the boundary', async ({
    redisStore,
  }) => {
    const tiered = new TieredStore(redisStore, harness.backend);
    const sessionId = newSession();
    const epoch = await commitAll(redisStore, sessionId, turnDrafts(40));
    const head = await redisStore.head(sessionId);
    const shapes = [{}, { limit: 7 }, { limit: 1000, maxBytes: 900 }, { limit: 3, maxBytes: 1 }, { fromSeq: 33 }];
    const before = await Promise.all(shapes.map((shape) => exportBytes(redisStore, sessionId, shape)));
    const events = await redisStore.read(sessionId, 0, 10_000);

    const run = await archiveSession({
      store: redisStore,
      archive: harness.backend,
      sessionId,
      token: token(),
      before: 150,
      segmentEvents: 40,
    });
    expect(run).toMatchObject({ status: 'archived', epoch, appended: run.status === 'archived' ? run.cut : -1 });
    const cut = run.status === 'archived' ? run.cut : 0;
    expect(cut).toBeGreaterThan(100);
    expect(cut).toBeLessThanOrEqual(150);
    // The hot store alone no longer has the prefix; the tiers have it all, byte for byte.
    await expect(redisStore.readStoredPage(sessionId, 0, 10)).rejects.toBeInstanceOf(StoreTrimmedError);
    expect(await redisStore.head(sessionId)).toEqual({ ...head, firstSeq: cut });
    expect(await tiered.head(sessionId)).toEqual(head);
    const after = await Promise.all(shapes.map((shape) => exportBytes(tiered, sessionId, shape)));
    after.forEach((exported, index) => {
      expect(exported.count).toBe(before[index]!.count);
      expect(exported.bytes.equals(before[index]!.bytes)).toBe(true);
      expect([...exported.epochs]).toEqual([epoch]);
    });
    expect(await tiered.read(sessionId, 0, 10_000)).toEqual(events);
    expect(await tiered.read(sessionId, 3, 5)).toEqual(events.slice(3, 8));
    // A read across the boundary in one page: cold events, then hot ones.
    const across = await tiered.readStoredPage(sessionId, cut - 5, 10);
    expect(across.bodies).toHaveLength(10);
    expect(across.truncated).toBeUndefined();
  });

  it('appends after archiving read on from the archive; archiving twice continues the archive', async ({
    redisStore,
  }) => {
    const tiered = new TieredStore(redisStore, harness.backend);
    const sessionId = newSession();
    await commitAll(redisStore, sessionId, turnDrafts(10));
    const first = await archiveSession({ store: redisStore, archive: harness.backend, sessionId, token: token() });
    expect(first.status).toBe('archived');
    await commitAll(tiered, sessionId, turnDrafts(10, 11));
    const before = await exportBytes(tiered, sessionId);
    const second = await archiveSession({ store: redisStore, archive: harness.backend, sessionId, token: token() });
    expect(second).toMatchObject({ status: 'archived' });
    const archived = await harness.backend.describe(sessionId);
    expect(archived).toMatchObject({ startSeq: 0, nextSeq: before.count });
    expect((await exportBytes(tiered, sessionId)).bytes.equals(before.bytes)).toBe(true);
    // Everything archived: the hot log is empty but keeps its head; a third run has nothing to do.
    expect(await archiveSession({ store: redisStore, archive: harness.backend, sessionId, token: token() })).toEqual({
      status: 'idle',
    });
  });

  it('never mixes epochs: an archive of another epoch is not read, and the run replaces it', async ({ redisStore }) => {
    const tiered = new TieredStore(redisStore, harness.backend);
    const sessionId = newSession();
    await commitAll(redisStore, sessionId, turnDrafts(5, 1, 'old'));
    expect(
      (await archiveSession({ store: redisStore, archive: harness.backend, sessionId, token: token() })).status,
    ).toBe('archived');
    // Deleted from the hot store only (a crash between the tiers): the new epoch's reads never see the old archive.
    await redisStore.deleteSession(sessionId);
    const epoch = await commitAll(redisStore, sessionId, turnDrafts(3, 1, 'new'));
    const fresh = await exportBytes(tiered, sessionId);
    expect([...fresh.epochs]).toEqual([epoch]);
    expect(fresh.bytes.includes(Buffer.from('old'))).toBe(false);
    await redisStore.trim({ sessionId, epoch, beforeSeq: 2 }); // trimmed without its archive: GONE, not old events
    await expect(tiered.readStoredPage(sessionId, 0, 10)).rejects.toMatchObject({ code: 'GONE', firstSeq: 2 });
    expect(await archiveSession({ store: redisStore, archive: harness.backend, sessionId, token: token() })).toEqual({
      status: 'archived',
      epoch,
      cut: expect.any(Number) as number,
      appended: expect.any(Number) as number,
      trimmed: expect.any(Number) as number,
    });
    expect((await harness.backend.describe(sessionId))?.epoch).toBe(epoch);
    await expect(tiered.readStoredPage(sessionId, 0, 10)).rejects.toMatchObject({ code: 'GONE', firstSeq: 2 });
  });

  it('a cold page asks the archive for its description and its page at once; a trim meanwhile changes nothing read', async ({
    redisStore,
  }) => {
    const sessionId = newSession();
    const epoch = await commitAll(redisStore, sessionId, turnDrafts(20));
    const before = await exportBytes(redisStore, sessionId, { limit: 30 });
    // Archived whole but trimmed only below 40: a run stopped after its verification (the next one trims the rest).
    const stop = (step: string): void => {
      if (step === 'verified') throw new Error('stopped');
    };
    await expect(
      archiveSession({ store: redisStore, archive: harness.backend, sessionId, token: token(), onStep: stop }),
    ).rejects.toThrow('stopped');
    const { headSeq } = await redisStore.head(sessionId);
    await redisStore.trim({ sessionId, epoch, beforeSeq: 40 });
    let reads = 0;
    const overlaps: boolean[] = [];
    const watched = new Proxy(harness.backend, {
      get(target, property) {
        if (property === 'read') {
          return (...args: Parameters<ArchiveBackend['read']>) => {
            reads++;
            return target.read(...args);
          };
        }
        if (property === 'describe') {
          return async (id: string) => {
            const readsBefore = reads;
            const described = await target.describe(id);
            // The rest is trimmed while the first page is being read.
            if (overlaps.length === 0) await redisStore.trim({ sessionId, epoch, beforeSeq: headSeq + 1 });
            overlaps.push(reads > readsBefore);
            return described;
          };
        }
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const after = await exportBytes(new TieredStore(redisStore, watched), sessionId, { limit: 30 });
    expect(after.count).toBe(before.count);
    expect(after.bytes.equals(before.bytes)).toBe(true);
    expect(overlaps.length).toBeGreaterThan(1);
    expect(overlaps.every(Boolean)).toBe(true);
  });

  it('delete removes both tiers', async ({ redisStore }) => {
    const tiered = new TieredStore(redisStore, harness.backend);
    const sessionId = newSession();
    await commitAll(redisStore, sessionId, turnDrafts(4));
    await archiveSession({ store: redisStore, archive: harness.backend, sessionId, token: token() });
    expect(await harness.backend.describe(sessionId)).toBeDefined();
    expect(await tiered.deleteSession(sessionId)).toBe(true);
    expect(await harness.backend.describe(sessionId)).toBeUndefined();
    expect(await tiered.head(sessionId)).toEqual({ epoch: '', headSeq: -1 });
    expect((await exportBytes(tiered, sessionId)).count).toBe(0);
  });
});
