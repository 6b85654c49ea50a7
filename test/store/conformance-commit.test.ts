// The EventStore conformance suite, part one: commit semantics (seqs and commit times, epochs, expectedSeq and
// expectedEpoch conflicts, races, idempotency keys, group commits). Part two (reads, watchers, listing, deletion,
// request validation) is conformance-read-watch.test.ts. Every engine passes both, on each backend of
// conformance-backends.ts.
import { randomUUID } from 'node:crypto';
import { describe, expect, vi } from 'vitest';
import { NO_EPOCH, type EventStore } from '../../server/store/event-store.ts';
import { clusterBackend, memoryBackend, redisBackend, type BackendTest } from './conformance-backends.ts';
import { committed, drafts, recorder, WAIT } from './conformance-helpers.ts';

/** The commit half of the conformance suite every `EventStore` engine must pass. */
function describeCommitConformance(name: string, it: BackendTest): void {
  describe(`EventStore conformance: ${name}`, () => {
    let a: EventStore;
    let b: EventStore;
    const newSession = (): string => `s-${randomUUID()}`;

    it.beforeAll(async ({ backend }) => {
      a = await backend.open();
      b = await backend.open();
    });

    it('gives an empty session head -1 and no epoch; its first commit a random one, the same on every instance', async () => {
      const sessionId = newSession();
      expect(await a.head(sessionId)).toEqual({ epoch: NO_EPOCH, headSeq: -1 });
      expect(await a.read(sessionId, 0, 10)).toEqual([]);
      const { epoch } = await a.commit({ sessionId, expectedSeq: 0, events: drafts(1) });
      expect(epoch).toMatch(/^[A-Za-z0-9_-]{8,}$/);
      expect(await b.head(sessionId)).toEqual({ epoch, headSeq: 0 });
      const other = newSession();
      await a.commit({ sessionId: other, expectedSeq: 0, events: drafts(1) });
      expect((await a.head(other)).epoch).not.toBe(epoch);
    });

    it('assigns contiguous seqs and one commit time per batch', async () => {
      const sessionId = newSession();
      const first = await a.commit({ sessionId, expectedSeq: 0, events: drafts(3) });
      expect(first.status).toBe('committed');
      const { epoch } = first;
      const firstEvents = committed(first);
      expect(firstEvents.map((event) => event.seq)).toEqual([0, 1, 2]);
      const time = firstEvents[0]!.time;
      expect(Number.isSafeInteger(time) && time > 0).toBe(true);
      expect(firstEvents.every((event) => event.time === time)).toBe(true);
      expect(firstEvents.map((event) => event.data)).toEqual(drafts(3).map((draft) => draft.data));

      const second = committed(await b.commit({ sessionId, expectedSeq: 3, events: drafts(2, 'f') }));
      expect(second.map((event) => event.seq)).toEqual([3, 4]);
      expect(await a.head(sessionId)).toEqual({ epoch, headSeq: 4 });
    });

    it('reports an expectedSeq conflict with the head and leaves the log unchanged', async () => {
      const sessionId = newSession();
      const events = committed(await a.commit({ sessionId, expectedSeq: 0, events: drafts(2) }));
      const { epoch } = await a.head(sessionId);
      for (const expectedSeq of [0, 1, 3, 7]) {
        const result = await b.commit({ sessionId, expectedSeq, events: drafts(1, 'late') });
        expect(result).toEqual({ status: 'conflict', epoch, headSeq: 1 });
      }
      expect(await a.read(sessionId, 0, 10)).toEqual(events);
      expect((await a.head(sessionId)).headSeq).toBe(1);
    });

    it('commits a retried batch with the same idempotency key once and answers with the original seqs', async () => {
      const sessionId = newSession();
      await a.commit({ sessionId, expectedSeq: 0, events: drafts(1, 'before') });
      const batch = drafts(2, 'once');
      const original = await a.commit({ sessionId, expectedSeq: 1, events: batch, idempotencyKey: 'k1' });
      const events = committed(original);
      const retry = await b.commit({ sessionId, expectedSeq: 1, events: batch, idempotencyKey: 'k1' });
      expect(retry).toEqual({
        status: 'duplicate',
        epoch: original.epoch,
        firstSeq: 1,
        lastSeq: 2,
        time: events[0]!.time,
      });
      // A retry after other commits (stale expectedSeq) is still a duplicate; key order does not matter.
      await a.commit({ sessionId, expectedSeq: 3, events: drafts(1, 'after') });
      const reordered = batch.map((draft) => ({ data: draft.data, type: draft.type }));
      expect((await a.commit({ sessionId, expectedSeq: 3, events: reordered, idempotencyKey: 'k1' })).status).toBe(
        'duplicate',
      );
      expect(await a.commit({ sessionId, expectedSeq: 4, events: drafts(2, 'other'), idempotencyKey: 'k1' })).toEqual({
        status: 'idempotency-mismatch',
        epoch: original.epoch,
        firstSeq: 1,
        lastSeq: 2,
      });
      const log = await b.read(sessionId, 0, 100);
      expect(log.map((event) => (event.data as { label: string }).label)).toEqual(['before', 'once', 'once', 'after']);
      const other = await a.commit({ sessionId, expectedSeq: 4, events: drafts(1), idempotencyKey: 'k2' });
      expect(committed(other).map((event) => event.seq)).toEqual([4]);
    });

    it('lets exactly one of several commits racing on the same expectedSeq win', async () => {
      const sessionId = newSession();
      await a.head(sessionId);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          (index % 2 === 0 ? a : b).commit({ sessionId, expectedSeq: 0, events: drafts(2, `w${index}`) }),
        ),
      );
      const winners = results.filter((result) => result.status === 'committed');
      expect(winners).toHaveLength(1);
      expect(results.filter((result) => result.status === 'conflict')).toHaveLength(7);
      for (const result of results) if (result.status === 'conflict') expect(result.headSeq).toBe(1);
      expect(await a.read(sessionId, 0, 10)).toEqual(committed(winners[0]!));
    });

    it('looks idempotency keys up without writing: known with the same or another batch, unknown, none', async () => {
      const sessionId = newSession();
      const batch = drafts(2, 'keyed');
      expect(await b.lookupKeys({ sessionId, batches: [{ events: batch, idempotencyKey: 'k' }] })).toEqual({
        epoch: undefined,
        keys: [undefined],
      });
      expect(await b.listSessions(sessionId)).toEqual([]); // the lookup created no epoch
      await a.commit({ sessionId, expectedSeq: 0, events: drafts(1, 'before') });
      const original = await a.commit({ sessionId, expectedSeq: 1, events: batch, idempotencyKey: 'k' });
      if (original.status !== 'committed') throw new Error(original.status);
      const time = original.events[0]!.time;
      const lookup = await b.lookupKeys({
        sessionId,
        batches: [
          { events: batch, idempotencyKey: 'k' },
          { events: drafts(1), idempotencyKey: 'unknown' },
          { events: drafts(1) },
        ],
      });
      expect(lookup).toEqual({
        epoch: original.epoch,
        keys: [{ firstSeq: 1, lastSeq: 2, time, sameBatch: true }, undefined, undefined],
      });
      const other = await b.lookupKeys({ sessionId, batches: [{ events: drafts(2, 'other'), idempotencyKey: 'k' }] });
      expect(other.keys).toEqual([{ firstSeq: 1, lastSeq: 2, time, sameBatch: false }]);
      expect(await a.read(sessionId, 0, 10)).toHaveLength(3);
      await expect(
        a.lookupKeys({
          sessionId,
          batches: [
            { events: batch, idempotencyKey: 'k' },
            { events: batch, idempotencyKey: 'k' },
          ],
        }),
      ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    });

    it('refuses a commit whose expectedEpoch is not the current epoch, even at the right length', async () => {
      const sessionId = newSession();
      const { epoch: old } = await a.commit({
        sessionId,
        expectedSeq: 0,
        expectedEpoch: NO_EPOCH,
        events: drafts(2, 'old'),
      });
      await b.deleteSession(sessionId);
      const { epoch: current } = await b.commit({ sessionId, expectedSeq: 0, events: drafts(2, 'new') });
      const stale = await a.commit({ sessionId, expectedSeq: 2, expectedEpoch: old, events: drafts(1, 'stale') });
      expect(stale).toEqual({ status: 'conflict', epoch: current, headSeq: 1 });
      expect((await b.read(sessionId, 0, 10)).map((event) => event.data)).toEqual(
        drafts(2, 'new').map((draft) => draft.data),
      );
      const fresh = await a.commit({ sessionId, expectedSeq: 2, expectedEpoch: current, events: drafts(1, 'ok') });
      expect(fresh.status).toBe('committed');
      // A deleted session has no epoch until its next commit: an old expectedEpoch conflicts.
      await b.deleteSession(sessionId);
      const afterDelete = await a.commit({ sessionId, expectedSeq: 0, expectedEpoch: current, events: drafts(1) });
      expect(afterDelete).toEqual({ status: 'conflict', epoch: NO_EPOCH, headSeq: -1 });
    });

    it('group-commits several batches at contiguous seqs with one time and one notification', async () => {
      const sessionId = newSession();
      const watcher = recorder();
      b.watch(sessionId, watcher);
      await b.head(sessionId);
      const result = await a.commitGroup({
        sessionId,
        expectedSeq: 0,
        batches: [
          { events: drafts(2, 'g1'), idempotencyKey: 'g1' },
          { events: drafts(1, 'g2') },
          { events: drafts(3, 'g3'), idempotencyKey: 'g3' },
        ],
      });
      if (result.status !== 'committed') throw new Error(`expected a commit, got ${result.status}`);
      expect(result.events.map((event) => event.seq)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(result.events.map((event) => (event.data as { label: string }).label)).toEqual([
        'g1',
        'g1',
        'g2',
        'g3',
        'g3',
        'g3',
      ]);
      expect(new Set(result.events.map((event) => event.time)).size).toBe(1);
      expect(await b.read(sessionId, 0, 10)).toEqual(result.events);
      await vi.waitFor(() => expect(watcher.batches.flatMap((batch) => batch.events)).toEqual(result.events), WAIT);
      expect(watcher.batches).toHaveLength(1);
      // Each batch's key remembers its own batch.
      const retry = await b.commit({ sessionId, expectedSeq: 6, events: drafts(3, 'g3'), idempotencyKey: 'g3' });
      expect(retry).toMatchObject({ status: 'duplicate', firstSeq: 3, lastSeq: 5, time: result.events[0]!.time });
      const first = await b.commit({ sessionId, expectedSeq: 6, events: drafts(2, 'g1'), idempotencyKey: 'g1' });
      expect(first).toMatchObject({ status: 'duplicate', firstSeq: 0, lastSeq: 1 });
    });

    it('writes nothing of a group when one of its keys is known, and says which', async () => {
      const sessionId = newSession();
      await a.commit({ sessionId, expectedSeq: 0, events: drafts(1, 'k'), idempotencyKey: 'known' });
      const result = await b.commitGroup({
        sessionId,
        expectedSeq: 1,
        batches: [
          { events: drafts(1, 'new'), idempotencyKey: 'new' },
          { events: drafts(1, 'k'), idempotencyKey: 'known' },
          { events: drafts(2, 'other'), idempotencyKey: 'known-other' },
        ],
      });
      expect(result.status).toBe('keys-known');
      if (result.status !== 'keys-known') return;
      expect(result.keys).toEqual([
        undefined,
        { firstSeq: 0, lastSeq: 0, time: expect.any(Number), sameBatch: true },
        undefined,
      ]);
      expect((await a.head(sessionId)).headSeq).toBe(0);
      // A known key with different content is reported as not the same batch.
      const mismatch = await b.commitGroup({
        sessionId,
        expectedSeq: 1,
        batches: [{ events: drafts(1, 'changed'), idempotencyKey: 'known' }],
      });
      expect(mismatch).toMatchObject({ status: 'keys-known', keys: [{ firstSeq: 0, lastSeq: 0, sameBatch: false }] });
      // Nothing of the refused groups was written: their new keys are still free.
      const ok = await a.commitGroup({
        sessionId,
        expectedSeq: 1,
        batches: [{ events: drafts(1), idempotencyKey: 'new' }],
      });
      expect(ok.status).toBe('committed');
    });

    it('refuses a whole group on a stale expectedSeq or epoch, and a group that repeats a key', async () => {
      const sessionId = newSession();
      const { epoch } = await a.commit({ sessionId, expectedSeq: 0, events: drafts(2) });
      const batches = [{ events: drafts(1), idempotencyKey: 'x' }, { events: drafts(1) }];
      expect(await b.commitGroup({ sessionId, expectedSeq: 1, batches })).toEqual({
        status: 'conflict',
        epoch,
        headSeq: 1,
      });
      const otherEpoch = await b.commitGroup({ sessionId, expectedSeq: 2, expectedEpoch: 'not-it', batches });
      expect(otherEpoch).toEqual({ status: 'conflict', epoch, headSeq: 1 });
      expect((await b.head(sessionId)).headSeq).toBe(1);
      const twice = [
        { events: drafts(1), idempotencyKey: 'same' },
        { events: drafts(1), idempotencyKey: 'same' },
      ];
      await expect(a.commitGroup({ sessionId, expectedSeq: 2, batches: twice })).rejects.toMatchObject({
        code: 'BAD_REQUEST',
      });
      await expect(a.commitGroup({ sessionId, expectedSeq: 2, batches: [] })).rejects.toMatchObject({
        code: 'BAD_REQUEST',
      });
      await expect(
        a.commitGroup({ sessionId, expectedSeq: 2, batches: [{ events: drafts(1) }, { events: [] }] }),
      ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      expect((await a.commitGroup({ sessionId, expectedSeq: 2, batches })).status).toBe('committed');
    });
  });
}

describeCommitConformance('memory', memoryBackend);
describeCommitConformance('redis', redisBackend);
describeCommitConformance('redis cluster', clusterBackend);
