// The EventStore conformance suite, trimming: `trim` removes a log's prefix (archive, then trim) and reads below the
// first seq it leaves fail with GONE and that seq, while seqs, head, epoch and idempotency stay. Every engine passes
// it, on each backend of conformance-backends.ts (two store instances on one backend: two hub nodes).
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { NO_EPOCH, type EventStore } from '../../server/store/event-store.ts';
import { StoreTrimmedError } from '../../server/store/trimmed-error.ts';
import { readEventPage } from '../../server/store/codec/stored-events.ts';
import { clusterBackend, memoryBackend, redisBackend, type BackendTest } from './conformance-backends.ts';
import { committed, drafts } from './conformance-helpers.ts';

function describeTrimConformance(name: string, it: BackendTest): void {
  describe(`EventStore conformance, trim: ${name}`, () => {
    let a: EventStore;
    let b: EventStore;
    const newSession = (): string => `trim-${randomUUID()}`;

    it.beforeAll(async ({ backend }) => {
      a = await backend.open();
      b = await backend.open();
    });

    /** Both read paths of `store` from `fromSeq` fail with GONE and `firstSeq`. */
    async function expectGone(store: EventStore, sessionId: string, fromSeq: number, firstSeq: number): Promise<void> {
      for (const read of [
        () => store.read(sessionId, fromSeq, 10),
        () => store.readStoredPage(sessionId, fromSeq, 10),
      ]) {
        const error = await read().then(
          () => undefined,
          (reason: unknown) => reason,
        );
        expect(error).toBeInstanceOf(StoreTrimmedError);
        expect(error).toMatchObject({ code: 'GONE', firstSeq });
      }
    }

    it('trims a prefix: head keeps its seq and names the first seq, reads from there work, below it are GONE', async () => {
      const sessionId = newSession();
      const result = await a.commit({ sessionId, expectedSeq: 0, events: drafts(10) });
      const { epoch } = result;
      const all = committed(result);
      expect(await b.head(sessionId)).toEqual({ epoch, headSeq: 9 }); // never trimmed: no firstSeq
      expect(await a.trim({ sessionId, epoch, beforeSeq: 4 })).toEqual({
        status: 'trimmed',
        epoch,
        firstSeq: 4,
        headSeq: 9,
        removed: 4,
      });
      expect(await b.head(sessionId)).toEqual({ epoch, headSeq: 9, firstSeq: 4 });
      expect(await b.read(sessionId, 4, 100)).toEqual(all.slice(4));
      expect(await b.read(sessionId, 7, 2)).toEqual(all.slice(7, 9));
      expect(await readEventPage(b, sessionId, 4, 100)).toEqual({ epoch, events: all.slice(4) });
      expect(await readEventPage(b, sessionId, 10, 100)).toEqual({ epoch, events: [] });
      for (const fromSeq of [0, 3]) await expectGone(b, sessionId, fromSeq, 4);
      for (const fromSeq of [0, 3]) await expectGone(a, sessionId, fromSeq, 4);

      // Commits continue the seqs, on either node; the new events read with the kept ones.
      const next = committed(await b.commit({ sessionId, expectedSeq: 10, events: drafts(2, 'n') }));
      expect(next.map((event) => event.seq)).toEqual([10, 11]);
      expect(await a.commit({ sessionId, expectedSeq: 4, events: drafts(1) })).toEqual({
        status: 'conflict',
        epoch,
        headSeq: 11,
      });
      expect(await a.read(sessionId, 4, 100)).toEqual([...all.slice(4), ...next]);
      expect(await a.head(sessionId)).toEqual({ epoch, headSeq: 11, firstSeq: 4 });
    });

    it('is idempotent: trimming at or below the first seq changes nothing; trimming every event keeps the head', async () => {
      const sessionId = newSession();
      const { epoch } = await a.commit({ sessionId, expectedSeq: 0, events: drafts(6) });
      expect(await a.trim({ sessionId, epoch, beforeSeq: 3 })).toMatchObject({ status: 'trimmed', removed: 3 });
      for (const beforeSeq of [3, 2, 0]) {
        expect(await b.trim({ sessionId, epoch, beforeSeq })).toEqual({
          status: 'trimmed',
          epoch,
          firstSeq: 3,
          headSeq: 5,
          removed: 0,
        });
      }
      // Up to the head + 1: the log holds no event, its seqs go on.
      expect(await b.trim({ sessionId, epoch, beforeSeq: 6 })).toEqual({
        status: 'trimmed',
        epoch,
        firstSeq: 6,
        headSeq: 5,
        removed: 3,
      });
      expect(await a.head(sessionId)).toEqual({ epoch, headSeq: 5, firstSeq: 6 });
      expect(await a.read(sessionId, 6, 10)).toEqual([]);
      expect(await a.readStoredPage(sessionId, 6, 10)).toEqual({ epoch, firstSeq: 6, bodies: [], times: [] });
      await expectGone(a, sessionId, 5, 6);
      await expectGone(b, sessionId, 0, 6);
      const next = committed(await a.commit({ sessionId, expectedSeq: 6, events: drafts(1) }));
      expect(next[0]!.seq).toBe(6);
      expect(await b.read(sessionId, 6, 10)).toEqual(next);
    });

    it('refuses another epoch, a session without one, and a trim past the head + 1, changing nothing', async () => {
      const sessionId = newSession();
      expect(await a.trim({ sessionId, epoch: 'no-such-epoch', beforeSeq: 0 })).toEqual({
        status: 'conflict',
        epoch: NO_EPOCH,
        firstSeq: 0,
        headSeq: -1,
        removed: 0,
      });
      expect(await a.head(sessionId)).toEqual({ epoch: NO_EPOCH, headSeq: -1 }); // nothing was created
      const { epoch } = await a.commit({ sessionId, expectedSeq: 0, events: drafts(4) });
      expect(await b.trim({ sessionId, epoch: 'another-epoch', beforeSeq: 2 })).toEqual({
        status: 'conflict',
        epoch,
        firstSeq: 0,
        headSeq: 3,
        removed: 0,
      });
      expect(await b.trim({ sessionId, epoch, beforeSeq: 5 })).toEqual({
        status: 'beyond-head',
        epoch,
        firstSeq: 0,
        headSeq: 3,
        removed: 0,
      });
      expect(await a.head(sessionId)).toEqual({ epoch, headSeq: 3 });
      expect(await a.read(sessionId, 0, 10)).toHaveLength(4);
    });

    it('answers a retried append whose events were trimmed as committed, with its original seqs', async () => {
      const sessionId = newSession();
      const batch = drafts(3, 'keyed');
      const { epoch } = await a.commit({ sessionId, expectedSeq: 0, events: batch, idempotencyKey: 'k1' });
      await a.commit({ sessionId, expectedSeq: 3, events: drafts(2), idempotencyKey: 'k2' });
      await a.trim({ sessionId, epoch, beforeSeq: 4 });
      // k1's events are all gone, k2's in part: neither can be compared, both stand as committed.
      const retry = await b.commit({ sessionId, expectedSeq: 5, events: batch, idempotencyKey: 'k1' });
      expect(retry).toMatchObject({ status: 'duplicate', epoch, firstSeq: 0, lastSeq: 2 });
      const partly = await b.commit({ sessionId, expectedSeq: 5, events: drafts(2), idempotencyKey: 'k2' });
      expect(partly).toMatchObject({ status: 'duplicate', epoch, firstSeq: 3, lastSeq: 4 });
      const lookup = await b.lookupKeys({ sessionId, batches: [{ events: drafts(1, 'other'), idempotencyKey: 'k1' }] });
      expect(lookup).toMatchObject({ epoch, keys: [{ firstSeq: 0, lastSeq: 2, sameBatch: true }] });
      // A key whose events are kept is still compared.
      await b.commit({ sessionId, expectedSeq: 5, events: drafts(1), idempotencyKey: 'k3' });
      const other = await a.commit({ sessionId, expectedSeq: 6, events: drafts(1, 'other'), idempotencyKey: 'k3' });
      expect(other).toMatchObject({ status: 'idempotency-mismatch', firstSeq: 5, lastSeq: 5 });
    });

    it('deletes the first seq with the session: the next log starts at seq 0 in a new epoch', async () => {
      const sessionId = newSession();
      const { epoch } = await a.commit({ sessionId, expectedSeq: 0, events: drafts(5) });
      await a.trim({ sessionId, epoch, beforeSeq: 3 });
      expect(await b.deleteSession(sessionId)).toBe(true);
      expect(await a.head(sessionId)).toEqual({ epoch: NO_EPOCH, headSeq: -1 });
      const again = await b.commit({ sessionId, expectedSeq: 0, events: drafts(2) });
      expect(again.epoch).not.toBe(epoch);
      expect(committed(again).map((event) => event.seq)).toEqual([0, 1]);
      expect(await a.head(sessionId)).toEqual({ epoch: again.epoch, headSeq: 1 });
      expect(await a.read(sessionId, 0, 10)).toEqual(committed(again));
    });

    it('keeps snapshots working over a trimmed log: the head read with them is the whole log', async () => {
      const sessionId = newSession();
      const { epoch } = await a.commit({ sessionId, expectedSeq: 0, events: drafts(5) });
      await a.trim({ sessionId, epoch, beforeSeq: 5 });
      const read = await b.snapshots.get(sessionId);
      expect(read).toMatchObject({ status: 'none', reason: 'missing', epoch, headSeq: 4 });
    });

    it('rejects malformed trims with BAD_REQUEST, changing nothing', async () => {
      const sessionId = newSession();
      const { epoch } = await a.commit({ sessionId, expectedSeq: 0, events: drafts(3) });
      for (const request of [
        { sessionId, epoch, beforeSeq: -1 },
        { sessionId, epoch, beforeSeq: 1.5 },
        { sessionId, epoch: '', beforeSeq: 1 },
        { sessionId, epoch: 'x'.repeat(65), beforeSeq: 1 },
        { sessionId: '', epoch, beforeSeq: 1 },
      ]) {
        await expect(a.trim(request)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      }
      expect(await a.head(sessionId)).toEqual({ epoch, headSeq: 2 });
    });
  });
}

describeTrimConformance('memory', memoryBackend);
describeTrimConformance('redis', redisBackend);
describeTrimConformance('redis cluster', clusterBackend);
