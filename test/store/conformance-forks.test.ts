// The EventStore conformance suite, forks: what `store.forks` makes and how the lineage layer reads a fork
// (docs/storage.md#forks). Every engine passes it, on each backend of conformance-backends.ts (on the 3-shard
// Cluster a fork's keys are mostly in another slot than its parent's).
import { randomUUID } from 'node:crypto';
import { describe, expect, vi } from 'vitest';
import { MessageProjector, type SessionEvent } from '../../shared/index.ts';
import type { EventStore, StoredPage, ValidatedDraft } from '../../server/store/event-store.ts';
import { MAX_FORK_DEPTH } from '../../server/store/fork-store.ts';
import { decodeStoredPage, readEventPage } from '../../server/store/codec/stored-events.ts';
import { LineageStore } from '../../server/store/lineage/lineage-store.ts';
import { clusterBackend, memoryBackend, redisBackend, type BackendTest } from './conformance-backends.ts';
import { committed, drafts, readAll, recorder, WAIT } from './conformance-helpers.ts';

/** The page read with its bound by bytes (`maxBytes`), where the engine takes one. */
type BoundedRead = (sessionId: string, fromSeq: number, limit: number, maxBytes?: number) => Promise<StoredPage>;

const repair: ValidatedDraft[] = [{ type: 'turn/end', data: { turn: 1, reason: { kind: 'interrupted' } } }];

function describeForkConformance(name: string, it: BackendTest): void {
  describe(`EventStore conformance, forks: ${name}`, () => {
    let raw: EventStore;
    let a: EventStore;
    let b: EventStore;
    const newSession = (label = 'p'): string => `fork-${label}-${randomUUID()}`;

    it.beforeAll(async ({ backend }) => {
      raw = await backend.open();
      a = LineageStore.over(raw);
      b = LineageStore.over(await backend.open());
    });

    async function parentOf(count: number): Promise<{ id: string; epoch: string; events: readonly SessionEvent[] }> {
      const id = newSession();
      const result = await a.commit({ sessionId: id, expectedSeq: 0, events: drafts(count, id) });
      return { id, epoch: result.epoch, events: committed(result) };
    }

    it('makes a fork that reads the parent prefix from any node, then its own events, without copying', async () => {
      const parent = await parentOf(10);
      const child = newSession('c');
      const made = await a.forks.create({
        parentId: parent.id,
        parentEpoch: parent.epoch,
        atSeq: 5,
        childId: child,
        events: [],
      });
      expect(made).toMatchObject({ status: 'forked', headSeq: 5, events: [] });
      if (made.status !== 'forked') return;
      expect(made.lineage).toEqual({ parent: parent.id, forkSeq: 5, parentEpoch: parent.epoch, depth: 1 });
      expect(made.epoch).not.toBe(parent.epoch);
      // Through the lineage layer the fork is a whole log from seq 0; the engine holds none of the prefix.
      expect(await b.head(child)).toEqual({ epoch: made.epoch, headSeq: 5 });
      expect((await raw.head(child)).firstSeq).toBe(6);
      await expect(raw.read(child, 0, 10)).rejects.toMatchObject({ code: 'GONE', firstSeq: 6 });
      expect(await readAll(b, child)).toEqual(parent.events.slice(0, 6));
      expect(await b.read(child, 2, 100)).toEqual(parent.events.slice(2, 6));
      const page = await b.readStoredPage(child, 4, 10);
      expect(page).toMatchObject({ epoch: made.epoch, firstSeq: 4 });
      expect(page.bodies).toHaveLength(2); // the fork has no events of its own yet
      expect(await b.forks.lineage(child)).toEqual({ epoch: made.epoch, lineage: made.lineage });
      expect(await b.forks.lineage(parent.id)).toEqual({ epoch: parent.epoch, lineage: undefined });
      expect(await b.forks.list(parent.id)).toEqual([child]);

      // Both go on alone: the fork's seqs continue after the fork seq, the parent's after its head.
      const own = await b.commit({
        sessionId: child,
        expectedSeq: 6,
        expectedEpoch: made.epoch,
        events: drafts(2, 'c'),
      });
      expect(committed(own).map((event) => event.seq)).toEqual([6, 7]);
      await a.commit({ sessionId: parent.id, expectedSeq: 10, events: drafts(1, 'p') });
      const childLog = await readAll(a, child);
      expect(childLog.slice(0, 6)).toEqual(parent.events.slice(0, 6));
      expect(childLog.slice(6)).toEqual(committed(own));
      expect(await a.head(parent.id)).toMatchObject({ headSeq: 10 });
      // Pages bounded by bytes (where the engine bounds them) still read the whole log, page after page.
      const bounded: SessionEvent[] = [];
      for (;;) {
        const next = await (b.readStoredPage as BoundedRead)(child, bounded.length, 100, 40);
        if (next.bodies.length === 0) break;
        bounded.push(...decodeStoredPage(child, next).events);
      }
      expect(bounded).toEqual(childLog);
      // A page across the fork seq holds the prefix's last events and the fork's first ones.
      const across = await a.readStoredPage(child, 4, 10);
      expect(across).toMatchObject({ epoch: made.epoch, firstSeq: 4 });
      expect(across.bodies).toHaveLength(4);
      expect((await readEventPage(b, child, 4, 10)).events).toEqual(childLog.slice(4));
      expect(await b.read(child, 5, 2)).toEqual(childLog.slice(5, 7));
      expect(await b.commit({ sessionId: child, expectedSeq: 6, events: drafts(1) })).toMatchObject({
        status: 'conflict',
        headSeq: 7,
      });
    });

    it('starts a fork with its repair events, committed with it at atSeq + 1', async () => {
      const parent = await parentOf(3);
      const child = newSession('c');
      const made = await b.forks.create({
        parentId: parent.id,
        parentEpoch: parent.epoch,
        atSeq: 1,
        childId: child,
        events: repair,
      });
      expect(made).toMatchObject({ status: 'forked', headSeq: 2 });
      if (made.status !== 'forked') return;
      expect(made.events).toEqual([expect.objectContaining({ seq: 2, type: 'turn/end' })]);
      const log = await readAll(a, child);
      expect(log.slice(0, 2)).toEqual(parent.events.slice(0, 2));
      expect(log.slice(2)).toEqual(made.events);
    });

    it('refuses a target that exists (and tells a retried fork its own lineage), a changed parent, a seq past its head', async () => {
      const parent = await parentOf(4);
      const taken = newSession('taken');
      await a.commit({ sessionId: taken, expectedSeq: 0, events: drafts(1) });
      const request = { parentId: parent.id, parentEpoch: parent.epoch, atSeq: 2, events: [] };
      expect(await a.forks.create({ ...request, childId: taken })).toMatchObject({
        status: 'target-exists',
        headSeq: 0,
        lineage: undefined,
      });
      expect(await a.forks.list(parent.id)).toEqual([]);
      const child = newSession('c');
      const made = await a.forks.create({ ...request, childId: child });
      expect(made.status).toBe('forked');
      const again = await b.forks.create({ ...request, childId: child });
      expect(again).toMatchObject({ status: 'target-exists', headSeq: 2, lineage: { parent: parent.id, forkSeq: 2 } });
      expect(await a.forks.list(parent.id)).toEqual([child]);
      expect(await a.forks.create({ ...request, parentEpoch: 'another', childId: newSession() })).toMatchObject({
        status: 'parent-changed',
        epoch: parent.epoch,
        headSeq: 3,
      });
      expect(await a.forks.create({ ...request, atSeq: 4, childId: newSession() })).toMatchObject({
        status: 'parent-changed',
      });
      await expect(a.forks.create({ ...request, childId: parent.id })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      await expect(a.forks.create({ ...request, atSeq: -1, childId: newSession() })).rejects.toMatchObject({
        code: 'BAD_REQUEST',
      });
    });

    it('forks a fork (inside its prefix and inside its own events), up to the deepest nesting allowed', async () => {
      const root = await parentOf(6);
      const one = newSession('one');
      const made = await a.forks.create({
        parentId: root.id,
        parentEpoch: root.epoch,
        atSeq: 3,
        childId: one,
        events: [],
      });
      if (made.status !== 'forked') throw new Error(made.status);
      const own = committed(
        await a.commit({ sessionId: one, expectedSeq: 4, expectedEpoch: made.epoch, events: drafts(3, 'one') }),
      );
      const two = newSession('two');
      const deeper = await b.forks.create({
        parentId: one,
        parentEpoch: made.epoch,
        atSeq: 5,
        childId: two,
        events: [],
      });
      expect(deeper).toMatchObject({ status: 'forked', lineage: { depth: 2, forkSeq: 5, parent: one } });
      expect(await readAll(b, two, 3)).toEqual([...root.events.slice(0, 4), ...own.slice(0, 2)]);
      const inPrefix = newSession('three');
      const made3 = await b.forks.create({
        parentId: one,
        parentEpoch: made.epoch,
        atSeq: 1,
        childId: inPrefix,
        events: [],
      });
      expect(made3).toMatchObject({ status: 'forked', lineage: { depth: 2 } });
      expect(await readAll(a, inPrefix)).toEqual(root.events.slice(0, 2));

      // A chain down to the deepest level allowed; one more is refused.
      let parentId = two;
      let parentEpoch = deeper.status === 'forked' ? deeper.epoch : '';
      for (let depth = 3; depth <= MAX_FORK_DEPTH; depth++) {
        const next = newSession(`d${depth}`);
        const link = await a.forks.create({ parentId, parentEpoch, atSeq: 5, childId: next, events: [] });
        if (link.status !== 'forked') throw new Error(`depth ${depth}: ${link.status}`);
        [parentId, parentEpoch] = [next, link.epoch];
      }
      expect(await readAll(b, parentId, 6)).toEqual([...root.events.slice(0, 4), ...own.slice(0, 2)]);
      expect(await b.head(parentId)).toEqual({ epoch: parentEpoch, headSeq: 5 });
      expect(await a.forks.create({ parentId, parentEpoch, atSeq: 5, childId: newSession(), events: [] })).toEqual({
        status: 'too-deep',
        depth: MAX_FORK_DEPTH + 1,
      });
    });

    it('refuses to delete a parent while it has forks; a deleted fork leaves its parent, which can then go', async () => {
      const parent = await parentOf(3);
      const child = newSession('c');
      await a.forks.create({ parentId: parent.id, parentEpoch: parent.epoch, atSeq: 1, childId: child, events: [] });
      await expect(b.deleteSession(parent.id)).rejects.toMatchObject({ code: 'HAS_FORKS', forks: 1 });
      expect(await a.head(parent.id)).toEqual({ epoch: parent.epoch, headSeq: 2 });
      expect(await readAll(a, child)).toEqual(parent.events.slice(0, 2));
      expect(await b.deleteSession(child)).toBe(true);
      expect(await a.forks.lineage(child)).toEqual({ epoch: undefined, lineage: undefined });
      expect(await a.forks.list(parent.id)).toEqual([]);
      expect(await b.deleteSession(parent.id)).toBe(true);
      // The id is free again, and not a fork any more once written.
      await a.commit({ sessionId: child, expectedSeq: 0, events: drafts(1) });
      expect(await a.forks.lineage(child)).toMatchObject({ lineage: undefined });
      expect(await readAll(b, child)).toHaveLength(1);
    });

    it('tells the watchers of the new id, on every node, to re-read it', async () => {
      const parent = await parentOf(2);
      const child = newSession('c');
      const watcher = recorder();
      const stop = b.watch(child, watcher);
      await b.head(child); // notifications flow once a read of the session returns
      await a.forks.create({ parentId: parent.id, parentEpoch: parent.epoch, atSeq: 1, childId: child, events: [] });
      await vi.waitFor(() => expect(watcher.resyncs).toBeGreaterThan(0), WAIT);
      stop();
    });

    it('serves a fork its parent snapshot when it covers the shared prefix only, until it has its own', async () => {
      const id = newSession();
      const messages = Array.from({ length: 6 }, (_, index) => ({
        type: 'user/message',
        data: { role: 'user', content: `m${index}` },
        surfaceOp: 'append' as const,
      }));
      const result = await a.commit({ sessionId: id, expectedSeq: 0, events: messages });
      const events = committed(result);
      const projector = (seq: number) => {
        const projection = new MessageProjector();
        projection.applyAll(events.slice(0, seq + 1));
        return projection.exportState();
      };
      expect(await raw.snapshots.put(id, { epoch: result.epoch, seq: 3, state: projector(3) })).toBe('written');
      const [later, earlier] = [newSession('later'), newSession('earlier')];
      const request = { parentId: id, parentEpoch: result.epoch, events: [] };
      const made = await a.forks.create({ ...request, atSeq: 4, childId: later });
      await a.forks.create({ ...request, atSeq: 2, childId: earlier });
      if (made.status !== 'forked') throw new Error(made.status);
      const inherited = await b.snapshots.get(later);
      expect(inherited).toEqual({
        status: 'found',
        snapshot: { epoch: made.epoch, seq: 3, state: projector(3) },
        headSeq: 4,
      });
      // The engine itself has none for the fork; a snapshot past the fork seq is not the fork's.
      expect(await raw.snapshots.get(later)).toMatchObject({ status: 'none', reason: 'missing' });
      expect(await b.snapshots.get(earlier)).toMatchObject({ status: 'none', reason: 'missing', headSeq: 2 });
      // Its own, once written, wins.
      const own = { epoch: made.epoch, seq: 4, state: projector(4) };
      expect(await a.snapshots.put(later, own)).toBe('written');
      expect(await b.snapshots.get(later)).toEqual({ status: 'found', snapshot: own, headSeq: 4 });
    });

    it('refuses bad ids', async () => {
      await expect(a.forks.lineage('')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      await expect(a.forks.list('{x}')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    });
  });
}

describeForkConformance('memory', memoryBackend);
describeForkConformance('redis', redisBackend);
describeForkConformance('redis cluster', clusterBackend);
