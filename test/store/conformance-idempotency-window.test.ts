// The EventStore conformance suite, the idempotency window: `pruneIdempotencyKeys` drops the keys of trimmed appends
// committed before a time, in bounded steps, and keeps every other key (those of events the hot log holds, recent
// ones) and the base. Every engine passes it, on each backend of conformance-backends.ts (two store instances on
// one backend: two hub nodes).
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { EventStore } from '../../server/store/event-store.ts';
import { pruneIdempotencyWindow } from '../../server/store/idempotency-prune.ts';
import { clusterBackend, memoryBackend, redisBackend, type BackendTest } from './conformance-backends.ts';
import { drafts } from './conformance-helpers.ts';

/** Commit times of the test's appends (epoch ms): the store keeps the time an import gives it. */
const OLD = 1_700_000_000_000;
const RECENT = OLD + 86_400_000;

function describeWindowConformance(name: string, it: BackendTest): void {
  describe(`EventStore conformance, idempotency window: ${name}`, () => {
    let a: EventStore;
    let b: EventStore;
    const newSession = (): string => `idem-${randomUUID()}`;

    it.beforeAll(async ({ backend }) => {
      a = await backend.open();
      b = await backend.open();
    });

    /** Appends of 2 events with keys `keys`, at `time`, from `expectedSeq`; the epoch. */
    async function keyed(sessionId: string, expectedSeq: number, keys: readonly string[], time: number) {
      const batches = keys.map((idempotencyKey) => ({ events: drafts(2, idempotencyKey), idempotencyKey }));
      const result = await a.commitGroup({ sessionId, expectedSeq, batches, time });
      if (result.status !== 'committed') throw new Error(`commit: ${result.status}`);
      return result.epoch;
    }

    /** Which of `keys` the store still knows. */
    async function known(store: EventStore, sessionId: string, keys: readonly string[]): Promise<string[]> {
      const batches = keys.map((idempotencyKey) => ({ events: drafts(2, idempotencyKey), idempotencyKey }));
      const lookup = await store.lookupKeys({ sessionId, batches });
      return keys.filter((_, index) => lookup.keys[index] !== undefined);
    }

    it('drops the keys of trimmed appends committed before the time; keeps recent ones, hot ones and the base', async () => {
      const sessionId = newSession();
      const epoch = await keyed(sessionId, 0, ['old-1', 'old-2'], OLD); // seqs 0-3
      await keyed(sessionId, 4, ['recent'], RECENT); // seqs 4-5
      await keyed(sessionId, 6, ['hot-old'], OLD); // seqs 6-7: stay in the hot log
      const all = ['old-1', 'old-2', 'recent', 'hot-old'];
      expect(await a.trim({ sessionId, epoch, beforeSeq: 6 })).toMatchObject({ status: 'trimmed', firstSeq: 6 });

      // Nothing is older than OLD: nothing goes, and the recent trimmed key's time is told.
      expect(await pruneIdempotencyWindow(b, sessionId, OLD)).toEqual({ removed: 0, youngestKept: RECENT });
      expect(await known(a, sessionId, all)).toEqual(all);

      expect(await pruneIdempotencyWindow(b, sessionId, RECENT)).toEqual({ removed: 2, youngestKept: RECENT });
      expect(await known(a, sessionId, all)).toEqual(['recent', 'hot-old']);

      // A time past every key: the trimmed ones go, the key of events the hot log holds stays.
      expect(await pruneIdempotencyWindow(b, sessionId, RECENT + 1)).toEqual({ removed: 1, youngestKept: 0 });
      expect(await known(a, sessionId, all)).toEqual(['hot-old']);
      expect(await pruneIdempotencyWindow(a, sessionId, Number.MAX_SAFE_INTEGER)).toEqual({
        removed: 0,
        youngestKept: 0,
      });

      // The base stays: the head still starts at 6, and commits continue at 8.
      expect(await b.head(sessionId)).toEqual({ epoch, headSeq: 7, firstSeq: 6 });
      // A retry of the hot append is still a duplicate; a retry of a dropped one commits anew (after the head).
      const hotRetry = await b.commit({
        sessionId,
        expectedSeq: 8,
        events: drafts(2, 'hot-old'),
        idempotencyKey: 'hot-old',
      });
      expect(hotRetry).toMatchObject({ status: 'duplicate', epoch, firstSeq: 6, lastSeq: 7 });
      const oldRetry = await b.commit({
        sessionId,
        expectedSeq: 8,
        events: drafts(2, 'old-1'),
        idempotencyKey: 'old-1',
      });
      expect(oldRetry).toMatchObject({ status: 'committed', epoch });
      expect(await b.head(sessionId)).toEqual({ epoch, headSeq: 9, firstSeq: 6 });
    });

    it('keeps every key of a session never trimmed, and answers an unknown session as done', async () => {
      const sessionId = newSession();
      await keyed(sessionId, 0, ['k1', 'k2'], OLD);
      expect(await pruneIdempotencyWindow(a, sessionId, Number.MAX_SAFE_INTEGER)).toEqual({
        removed: 0,
        youngestKept: 0,
      });
      expect(await known(b, sessionId, ['k1', 'k2'])).toEqual(['k1', 'k2']);
      const missing = { sessionId: newSession(), olderThan: RECENT, cursor: '' };
      expect(await a.pruneIdempotencyKeys(missing)).toEqual({ cursor: '', removed: 0, youngestKept: 0 });
    });

    it('walks more than 1,000 keys in bounded steps', async () => {
      const sessionId = newSession();
      const keys = Array.from({ length: 1200 }, (_, index) => `k${index}`);
      let epoch = '';
      for (let first = 0; first < keys.length; first += 200) {
        epoch = await keyed(sessionId, first * 2, keys.slice(first, first + 200), OLD);
      }
      await keyed(sessionId, 2400, ['hot'], OLD);
      expect(await a.trim({ sessionId, epoch, beforeSeq: 2400 })).toMatchObject({ status: 'trimmed', removed: 2400 });
      let cursor = '';
      let steps = 0;
      let removed = 0;
      do {
        const step = await b.pruneIdempotencyKeys({ sessionId, olderThan: RECENT, cursor, count: 500 });
        steps++;
        removed += step.removed;
        cursor = step.cursor;
      } while (cursor !== '' && steps < 1000);
      expect(cursor).toBe('');
      expect(removed).toBe(1200);
      expect(steps).toBeGreaterThan(1);
      expect(await known(a, sessionId, ['k0', 'k600', 'k1199', 'hot'])).toEqual(['hot']);
      expect(await a.head(sessionId)).toEqual({ epoch, headSeq: 2401, firstSeq: 2400 });
    });

    it('rejects malformed prunes with BAD_REQUEST, changing nothing', async () => {
      const sessionId = newSession();
      const epoch = await keyed(sessionId, 0, ['k'], OLD);
      await a.trim({ sessionId, epoch, beforeSeq: 2 });
      for (const request of [
        { sessionId, olderThan: RECENT, cursor: 'x' },
        { sessionId, olderThan: RECENT, cursor: '01' },
        { sessionId, olderThan: 1.5, cursor: '' },
        { sessionId, olderThan: RECENT, cursor: '', count: 0 },
        { sessionId, olderThan: RECENT, cursor: '', count: 5001 },
        { sessionId: '', olderThan: RECENT, cursor: '' },
      ]) {
        await expect(a.pruneIdempotencyKeys(request)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      }
      expect(await known(b, sessionId, ['k'])).toEqual(['k']);
    });
  });
}

describeWindowConformance('memory', memoryBackend);
describeWindowConformance('redis', redisBackend);
describeWindowConformance('redis cluster', clusterBackend);
