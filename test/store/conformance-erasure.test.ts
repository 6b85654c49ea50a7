// What erasure relies on of every engine: `deleteSession` removes every record of the session (events, epoch,
// idempotency keys, first seq, snapshot, metadata), seen from another node, tells the watchers, and leaves the other
// sessions as they were. The same suite on memory, Redis and a 3-shard Redis Cluster.
import { randomUUID } from 'node:crypto';
import { describe, expect, vi } from 'vitest';
import { MessageProjector } from '../../shared/index.ts';
import { NO_EPOCH, type EventStore } from '../../server/store/event-store.ts';
import { clusterBackend, memoryBackend, redisBackend, type BackendTest } from './conformance-backends.ts';
import { committed, drafts, recorder, WAIT } from './conformance-helpers.ts';

/** A session with every record an engine keeps for one: events under a key, a trimmed prefix, metadata, a snapshot. */
async function fullSession(store: EventStore, sessionId: string): Promise<string> {
  const first = await store.commit({ sessionId, expectedSeq: 0, events: drafts(3), idempotencyKey: 'k1' });
  const events = committed(first);
  await store.commit({ sessionId, expectedSeq: 3, events: drafts(2, 'more'), idempotencyKey: 'k2' });
  expect(
    await store.trim({ sessionId, epoch: first.status === 'committed' ? first.epoch : '', beforeSeq: 1 }),
  ).toMatchObject({ status: 'trimmed' });
  await store.metadata.initialize(sessionId, { createdBy: 'alice', createdAt: 1 });
  await store.metadata.patch(sessionId, { title: 'T', labels: { userId: '42' } });
  const projector = new MessageProjector();
  projector.applyAll(events);
  const epoch = first.status === 'committed' ? first.epoch : '';
  expect(await store.snapshots.put(sessionId, { epoch, seq: 2, state: projector.exportState() })).toBe('written');
  return epoch;
}

function describeErasureConformance(name: string, it: BackendTest): void {
  describe(`EventStore conformance, erasure (deleteSession): ${name}`, () => {
    let a: EventStore;
    let b: EventStore;
    it.beforeAll(async ({ backend }) => {
      a = await backend.open();
      b = await backend.open();
    });

    it('removes every record of the session, as every node sees it, and tells its watchers', async () => {
      const sessionId = `erase-${randomUUID()}`;
      const other = `erase-${randomUUID()}`;
      await fullSession(a, sessionId);
      await fullSession(a, other);
      const otherHead = await a.head(other);
      const watcher = recorder();
      const stop = b.watch(sessionId, watcher);
      expect(await a.deleteSession(sessionId)).toBe(true);
      await vi.waitFor(() => expect(watcher.resyncs).toBeGreaterThan(0), WAIT);
      stop();
      for (const store of [a, b]) {
        expect(await store.head(sessionId)).toEqual({ epoch: NO_EPOCH, headSeq: -1 });
        expect(await store.read(sessionId, 0, 100)).toEqual([]);
        expect(await store.metadata.get(sessionId)).toBeUndefined();
        expect(await store.snapshots.get(sessionId)).toMatchObject({ status: 'none', reason: 'missing' });
        expect(await store.lookupKeys({ sessionId, batches: [{ events: drafts(3), idempotencyKey: 'k1' }] })).toEqual({
          epoch: undefined,
          keys: [undefined],
        });
        expect(await store.listSessions('erase-')).not.toContain(sessionId);
      }
      // The id starts over: seq 0, a new epoch, the old key commits anew.
      const again = await b.commit({ sessionId, expectedSeq: 0, events: drafts(1), idempotencyKey: 'k1' });
      expect(again).toMatchObject({ status: 'committed', events: [{ seq: 0 }] });
      // The other session is as it was.
      expect(await a.head(other)).toEqual(otherHead);
      expect(await b.metadata.get(other)).toMatchObject({ createdBy: 'alice', labels: { userId: '42' } });
      expect((await b.snapshots.get(other)).status).toBe('found');
      expect(await a.deleteSession(`erase-${randomUUID()}`)).toBe(false);
    });
  });
}

describeErasureConformance('memory', memoryBackend);
describeErasureConformance('redis', redisBackend);
describeErasureConformance('redis cluster', clusterBackend);
