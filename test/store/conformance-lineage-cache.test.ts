// The EventStore conformance suite, the lineage layer's cache (server/store/lineage/lineage-cache.ts): a fork's
// lineage (and its parent's prior epochs after a redaction) is read once per epoch, not once per page of its prefix
// or snapshot read, and a fork deleted and made again under the same
// id — on another node, so this node's cache never heard of the deletion — is read as what it is now.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { SessionEvent } from '../../shared/index.ts';
import type { EventStore } from '../../server/store/event-store.ts';
import type { ForkStore } from '../../server/store/fork-store.ts';
import { LineageStore } from '../../server/store/lineage/lineage-store.ts';
import type { RedactionStore } from '../../server/store/redaction-store.ts';
import { clusterBackend, memoryBackend, redisBackend, type BackendTest } from './conformance-backends.ts';
import { committed, drafts, readAll } from './conformance-helpers.ts';

/** The engine itself, its lineage and prior epoch reads counted (every other member is the engine's, called on it). */
function countingLineage(store: EventStore): { store: EventStore; reads: { lineage: number; priorEpochs: number } } {
  const reads = { lineage: 0, priorEpochs: 0 };
  const forks: ForkStore = {
    create: (request) => store.forks.create(request),
    list: (sessionId) => store.forks.list(sessionId),
    lineage: (sessionId) => {
      reads.lineage++;
      return store.forks.lineage(sessionId);
    },
  };
  const redactions: RedactionStore = {
    redact: (request) => store.redactions.redact(request),
    priorEpochs: (sessionId, epoch) => {
      reads.priorEpochs++;
      return store.redactions.priorEpochs(sessionId, epoch);
    },
  };
  const counted = new Proxy(store, {
    get(target, property) {
      if (property === 'forks') return forks;
      if (property === 'redactions') return redactions;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: counted, reads };
}

function describeLineageCache(name: string, it: BackendTest): void {
  describe(`EventStore conformance, the lineage cache: ${name}`, () => {
    let a: EventStore;
    let b: EventStore;
    let reads: { lineage: number; priorEpochs: number };

    it.beforeAll(async ({ backend }) => {
      const counted = countingLineage(await backend.open());
      a = LineageStore.over(counted.store);
      reads = counted.reads;
      b = LineageStore.over(await backend.open());
    });

    async function parentOf(count: number, label: string): Promise<{ id: string; epoch: string }> {
      const id = `lc-${label}-${randomUUID()}`;
      const result = await b.commit({ sessionId: id, expectedSeq: 0, events: drafts(count, label) });
      committed(result);
      return { id, epoch: result.epoch };
    }

    it("reads a fork's lineage once for all the pages of its prefix", async () => {
      const parent = await parentOf(40, 'p');
      const child = `${parent.id}-c`;
      await b.forks.create({ parentId: parent.id, parentEpoch: parent.epoch, atSeq: 29, childId: child, events: [] });
      await b.commit({ sessionId: child, expectedSeq: 30, events: drafts(3, 'own') });
      const before = reads.lineage;
      const events = await readAll(a, child, 4);
      expect(events.map((event) => event.seq)).toEqual(Array.from({ length: 33 }, (_, seq) => seq));
      expect(events.slice(0, 30)).toEqual((await readAll(b, parent.id, 10)).slice(0, 30));
      expect(reads.lineage - before).toBe(1);
      expect(await readAll(a, child, 7)).toEqual(events);
      // Decoded reads (`read`, not pages) too: their refusals say the fork's epoch as well.
      const decoded: SessionEvent[] = [];
      for (let page = await a.read(child, 0, 4); page.length > 0; page = await a.read(child, decoded.length, 4)) {
        decoded.push(...page);
      }
      expect(decoded).toEqual(events);
      expect(reads.lineage - before).toBe(1);
      // A snapshot read of the fork (none of its own: its parent's is looked for, whose lineage is read too).
      expect(await a.snapshots.get(child)).toMatchObject({ status: 'none' });
      const known = reads.lineage;
      expect(await a.snapshots.get(child)).toMatchObject({ status: 'none' });
      expect(reads.lineage).toBe(known);

      // A redaction of the parent's prefix: its prior epochs are read once, for all the pages read in its new epoch.
      const redacted = await b.redactions.redact({ sessionId: parent.id, seqs: [3], reason: 'test', by: 'admin' });
      expect(redacted.status).toBe('redacted');
      const priorBefore = reads.priorEpochs;
      const after = await readAll(a, child, 4);
      expect(after.map((event) => event.seq)).toEqual(events.map((event) => event.seq));
      expect(after[3]).not.toEqual(events[3]);
      expect(reads.priorEpochs - priorBefore).toBe(1);
      expect(reads.lineage).toBe(known);
    });

    it('a fork deleted and made again elsewhere, from another parent or as no fork, is read as it is now', async () => {
      const first = await parentOf(10, 'one');
      const second = await parentOf(10, 'two');
      const child = `lc-c-${randomUUID()}`;
      const fork = (parent: { id: string; epoch: string }, atSeq: number) =>
        b.forks.create({ parentId: parent.id, parentEpoch: parent.epoch, atSeq, childId: child, events: [] });
      const firstEvents = await readAll(b, first.id);
      const secondEvents = await readAll(b, second.id);

      expect(await fork(first, 5)).toMatchObject({ status: 'forked' });
      expect(await readAll(a, child, 3)).toEqual(firstEvents.slice(0, 6));

      expect(await b.deleteSession(child)).toBe(true);
      expect(await fork(second, 7)).toMatchObject({ status: 'forked' });
      expect(await readAll(a, child, 3)).toEqual(secondEvents.slice(0, 8));
      expect(await a.head(child)).toMatchObject({ headSeq: 7 });

      expect(await b.deleteSession(child)).toBe(true);
      const own = committed(await b.commit({ sessionId: child, expectedSeq: 0, events: drafts(2, 'own') }));
      expect(await readAll(a, child, 3)).toEqual(own);

      expect(await b.deleteSession(child)).toBe(true);
      expect(await fork(first, 2)).toMatchObject({ status: 'forked' });
      expect(await readAll(a, child, 2)).toEqual(firstEvents.slice(0, 3));
    });
  });
}

describeLineageCache('memory', memoryBackend);
describeLineageCache('redis', redisBackend);
describeLineageCache('redis cluster', clusterBackend);
