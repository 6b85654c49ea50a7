// The EventStore conformance suite, retention: what `store.retention` does (expire a session atomically, leave a
// tombstone, walk the sessions, hold the sweep lease). Every engine passes it, on each backend of
// conformance-backends.ts.
import { randomUUID } from 'node:crypto';
import { describe, expect, vi } from 'vitest';
import { NO_EPOCH, type EventStore } from '../../server/store/event-store.ts';
import type { ExpireRequest } from '../../server/store/retention-store.ts';
import { clusterBackend, memoryBackend, redisBackend, type BackendTest } from './conformance-backends.ts';
import { committed, drafts, recorder, WAIT } from './conformance-helpers.ts';

const DAY = 24 * 3600 * 1000;

function expiry(overrides: Partial<ExpireRequest> = {}): ExpireRequest {
  return { expiredAt: Date.now(), tombstoneTtlMs: DAY, ...overrides };
}

function describeRetentionConformance(name: string, it: BackendTest): void {
  describe(`EventStore conformance, retention: ${name}`, () => {
    let a: EventStore;
    let b: EventStore;
    const newSession = (): string => `ret-${randomUUID()}`;

    it.beforeAll(async ({ backend }) => {
      a = await backend.open();
      b = await backend.open();
    });

    it('expires a session: its data is gone on every node, a tombstone says when, watchers are told', async () => {
      const sessionId = newSession();
      const events = committed(await a.commit({ sessionId, expectedSeq: 0, events: drafts(3), idempotencyKey: 'k' }));
      const epoch = (await a.head(sessionId)).epoch;
      const watcher = recorder();
      const stop = b.watch(sessionId, watcher);
      try {
        expect(await b.retention.activity(sessionId)).toEqual({ epoch, headSeq: 2, lastActivity: events[2]!.time });
        expect(await b.retention.status(sessionId)).toEqual({ status: 'not-expired' });
        const expiredAt = Date.now();
        const result = await a.retention.expire(sessionId, expiry({ expiredAt, expectedEpoch: epoch }));
        expect(result).toEqual({ status: 'expired', epoch, headSeq: 2, lastActivity: events[2]!.time });
        expect(await b.retention.status(sessionId)).toEqual({ status: 'expired', expiredAt });
        expect(await b.head(sessionId)).toEqual({ epoch: NO_EPOCH, headSeq: -1 });
        expect(await b.read(sessionId, 0, 10)).toEqual([]);
        expect((await b.readStoredPage(sessionId, 0, 10)).bodies).toEqual([]);
        expect(await b.retention.activity(sessionId)).toBeUndefined();
        expect(await b.listSessions('ret-')).not.toContain(sessionId);
        await vi.waitFor(() => expect(watcher.resyncs).toBeGreaterThan(0), WAIT);
        // Expiring it again finds nothing to expire and keeps the first tombstone.
        expect(await b.retention.expire(sessionId, expiry())).toEqual({ status: 'missing' });
        expect(await a.retention.status(sessionId)).toEqual({ status: 'expired', expiredAt });
      } finally {
        stop();
      }
    });

    it('a commit to an expired id starts a new log under a new epoch; its old idempotency keys are gone', async () => {
      const sessionId = newSession();
      const first = await a.commit({ sessionId, expectedSeq: 0, events: drafts(2), idempotencyKey: 'k' });
      expect((await a.retention.expire(sessionId, expiry())).status).toBe('expired');
      const again = await b.commit({ sessionId, expectedSeq: 0, events: drafts(1, 'new'), idempotencyKey: 'k' });
      expect(again.status).toBe('committed');
      expect(again.epoch).not.toBe(first.epoch);
      expect(await a.retention.status(sessionId)).toEqual({ status: 'not-expired' });
      expect(await a.head(sessionId)).toEqual({ epoch: again.epoch, headSeq: 0 });
    });

    it('keeps a session written to after idleSince, or of another epoch, and answers missing for no session', async () => {
      const sessionId = newSession();
      const events = committed(await a.commit({ sessionId, expectedSeq: 0, events: drafts(2) }));
      const { epoch } = await a.head(sessionId);
      const lastActivity = events[1]!.time;
      expect(await b.retention.expire(sessionId, expiry({ idleSince: lastActivity - 1 }))).toEqual({
        status: 'active',
        epoch,
        lastActivity,
      });
      expect(await b.retention.expire(sessionId, expiry({ expectedEpoch: 'another-epoch' }))).toEqual({
        status: 'conflict',
        epoch,
      });
      expect(await a.head(sessionId)).toEqual({ epoch, headSeq: 1 });
      expect(await a.retention.status(sessionId)).toEqual({ status: 'not-expired' });
      // Idle exactly since its last event: expired.
      expect((await b.retention.expire(sessionId, expiry({ idleSince: lastActivity }))).status).toBe('expired');
      const never = newSession();
      expect(await a.retention.expire(never, expiry())).toEqual({ status: 'missing' });
      expect(await a.retention.status(never)).toEqual({ status: 'not-expired' });
    });

    it('a trimmed session counts its head from its base; one trimmed to nothing is kept by idleSince', async () => {
      const sessionId = newSession();
      const events = committed(await a.commit({ sessionId, expectedSeq: 0, events: drafts(4) }));
      const { epoch } = await a.head(sessionId);
      expect((await a.trim({ sessionId, epoch, beforeSeq: 2 })).status).toBe('trimmed');
      expect(await b.retention.activity(sessionId)).toEqual({ epoch, headSeq: 3, lastActivity: events[3]!.time });
      expect((await a.trim({ sessionId, epoch, beforeSeq: 4 })).status).toBe('trimmed');
      expect(await b.retention.activity(sessionId)).toEqual({ epoch, headSeq: 3, lastActivity: undefined });
      const idle = expiry({ idleSince: Date.now() + DAY });
      expect(await b.retention.expire(sessionId, idle)).toEqual({ status: 'active', epoch, lastActivity: undefined });
      expect(await b.retention.expire(sessionId, expiry())).toEqual({
        status: 'expired',
        epoch,
        headSeq: 3,
        lastActivity: undefined,
      });
      expect((await a.retention.status(sessionId)).status).toBe('expired');
    });

    it('last activity is the commit time of the last event, also of an imported one', async () => {
      const sessionId = newSession();
      const time = Date.UTC(2024, 0, 2, 3, 4, 5);
      await a.commitGroup({ sessionId, expectedSeq: 0, batches: [{ events: drafts(2) }], time });
      expect(await b.retention.activity(sessionId)).toMatchObject({ headSeq: 1, lastActivity: time });
      expect((await b.retention.expire(sessionId, expiry({ idleSince: time }))).status).toBe('expired');
    });

    it('the tombstone lapses after its TTL; deleting the session removes it at once', async () => {
      const lapsing = newSession();
      await a.commit({ sessionId: lapsing, expectedSeq: 0, events: drafts(1) });
      await a.retention.expire(lapsing, expiry({ tombstoneTtlMs: 300 }));
      expect((await b.retention.status(lapsing)).status).toBe('expired');
      await vi.waitFor(async () => expect(await b.retention.status(lapsing)).toEqual({ status: 'not-expired' }), WAIT);
      const deleted = newSession();
      await a.commit({ sessionId: deleted, expectedSeq: 0, events: drafts(1) });
      await a.retention.expire(deleted, expiry());
      expect(await b.deleteSession(deleted)).toBe(true);
      expect(await a.retention.status(deleted)).toEqual({ status: 'not-expired' });
    });

    it('refuses bad expiry times without writing anything', async () => {
      const sessionId = newSession();
      await a.commit({ sessionId, expectedSeq: 0, events: drafts(1) });
      await expect(a.retention.expire(sessionId, expiry({ tombstoneTtlMs: 0 }))).rejects.toThrow(RangeError);
      await expect(a.retention.expire(sessionId, expiry({ expiredAt: Number.NaN }))).rejects.toThrow(RangeError);
      await expect(a.retention.expire(sessionId, expiry({ idleSince: 1.5 }))).rejects.toThrow(RangeError);
      expect((await a.head(sessionId)).headSeq).toBe(0);
    });

    it('scan walks every session in bounded steps', async () => {
      const ids = Array.from({ length: 7 }, () => newSession());
      for (const sessionId of ids) await a.commit({ sessionId, expectedSeq: 0, events: drafts(1) });
      const seen = new Set<string>();
      let cursor = '';
      let steps = 0;
      do {
        const page = await b.retention.scan(cursor, 2);
        for (const sessionId of page.sessionIds) seen.add(sessionId);
        cursor = page.cursor;
        steps++;
      } while (cursor !== '' && steps < 10_000);
      expect(cursor).toBe('');
      for (const sessionId of ids) expect(seen.has(sessionId)).toBe(true);
      expect(steps).toBeGreaterThan(1);
    });

    it('one node holds the sweep lease at a time; its holder extends it; a released or lapsed one is free', async () => {
      const [ownerA, ownerB] = [`a-${randomUUID()}`, `b-${randomUUID()}`];
      await a.retention.release(ownerA); // nothing held: no effect
      expect(await a.retention.lease(ownerA, 60_000)).toBe(true);
      expect(await b.retention.lease(ownerB, 60_000)).toBe(false);
      expect(await a.retention.lease(ownerA, 60_000)).toBe(true);
      await b.retention.release(ownerB); // not the holder: no effect
      expect(await b.retention.lease(ownerB, 60_000)).toBe(false);
      await a.retention.release(ownerA);
      expect(await b.retention.lease(ownerB, 200)).toBe(true);
      await vi.waitFor(async () => expect(await a.retention.lease(ownerA, 60_000)).toBe(true), WAIT);
      await a.retention.release(ownerA);
    });
  });
}

describeRetentionConformance('memory', memoryBackend);
describeRetentionConformance('redis', redisBackend);
describeRetentionConformance('redis cluster (3 shards)', clusterBackend);
