// The EventStore conformance suite, retention and forks together (issue 31: "deleting or expiring a parent keeps
// what its forks reference"): a session with forks is never expired (it stays 'active'; its forks read their prefix
// from it), and once its forks are deleted it expires like any other. Every engine, on each backend.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { EventStore } from '../../server/store/event-store.ts';
import { LineageStore } from '../../server/store/lineage/lineage-store.ts';
import { clusterBackend, memoryBackend, redisBackend, type BackendTest } from './conformance-backends.ts';
import { committed, drafts } from './conformance-helpers.ts';

const DAY = 24 * 3600 * 1000;

function describeRetentionForks(name: string, it: BackendTest): void {
  describe(`EventStore conformance, retention of forked sessions: ${name}`, () => {
    let store: EventStore;

    it.beforeAll(async ({ backend }) => {
      store = LineageStore.over(await backend.open());
    });

    it('keeps a parent with forks past its idle time, and its forks read their prefix; expires it once they are deleted', async () => {
      const parentId = `retf-${randomUUID()}`;
      const childId = `retf-${randomUUID()}-c`;
      const result = await store.commit({ sessionId: parentId, expectedSeq: 0, events: drafts(4) });
      const events = committed(result);
      const made = await store.forks.create({ parentId, parentEpoch: result.epoch, atSeq: 2, childId, events: [] });
      expect(made.status).toBe('forked');
      const expire = (sessionId: string): ReturnType<EventStore['retention']['expire']> =>
        store.retention.expire(sessionId, { expiredAt: Date.now(), tombstoneTtlMs: DAY, idleSince: Date.now() + DAY });

      expect((await expire(parentId)).status).toBe('active');
      expect(await store.retention.status(parentId)).toEqual({ status: 'not-expired' });
      expect(await store.read(childId, 0, 10)).toEqual(events.slice(0, 3));

      expect(await store.deleteSession(parentId).catch((error: unknown) => error)).toMatchObject({ code: 'HAS_FORKS' });
      // Once its fork is deleted (which takes it off the parent's list of forks), the parent expires like any other.
      expect(await store.deleteSession(childId)).toBe(true);
      expect(await store.forks.list(parentId)).toEqual([]);
      expect((await expire(parentId)).status).toBe('expired');
    });
  });
}

describeRetentionForks('memory', memoryBackend);
describeRetentionForks('redis', redisBackend);
describeRetentionForks('redis cluster', clusterBackend);
