// The EventStore conformance suite, redaction and forks together (issues 30 and 31: "redacting a prefix event shows
// in every fork"): a redaction gives the parent a new epoch, and its forks go on reading their prefix from it —
// redacted — because the new epoch names the one it replaced (`redactions.priorEpochs`). Only a redaction's epoch
// does: an epoch made any other way names none, so a parent rewritten otherwise still fails the fork's reads.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { EventStore, ValidatedDraft } from '../../server/store/event-store.ts';
import { LineageStore } from '../../server/store/lineage/lineage-store.ts';
import { MessageProjector } from '../../shared/index.ts';
import { MAX_PRIOR_EPOCHS } from '../../server/store/redaction-store.ts';
import { clusterBackend, memoryBackend, redisBackend, type BackendTest } from './conformance-backends.ts';
import { committed } from './conformance-helpers.ts';

const SECRET = 'sk-live-4d1f0c9a77';

const turn: ValidatedDraft[] = [
  { type: 'turn/start', data: { turn: 1 } },
  { type: 'user/message', data: { role: 'user', content: `my key is ${SECRET}` }, surfaceOp: 'append' },
  { type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } },
];

function describeRedactForks(name: string, it: BackendTest): void {
  describe(`EventStore conformance, redaction of a forked session: ${name}`, () => {
    let store: EventStore;

    it.beforeAll(async ({ backend }) => {
      store = LineageStore.over(await backend.open());
    });

    it("a fork reads its parent's redacted prefix after the redaction, through any number of them", async () => {
      const parentId = `rf-${randomUUID()}`;
      const childId = `${parentId}-c`;
      const result = await store.commit({ sessionId: parentId, expectedSeq: 0, events: turn });
      const made = await store.forks.create({ parentId, parentEpoch: result.epoch, atSeq: 2, childId, events: [] });
      expect(made.status).toBe('forked');
      expect(JSON.stringify(await store.read(childId, 0, 10))).toContain(SECRET);

      const first = await store.redactions.redact({ sessionId: parentId, seqs: [1], reason: 'leak', by: 'admin' });
      expect(first.status).toBe('redacted');
      if (first.status !== 'redacted') return;
      expect(await store.redactions.priorEpochs(parentId, first.epoch)).toEqual([result.epoch]);
      const childEvents = await store.read(childId, 0, 10);
      expect(childEvents.map((event) => event.seq)).toEqual([0, 1, 2]);
      expect(JSON.stringify(childEvents)).not.toContain(SECRET);
      expect((await store.readStoredPage(childId, 0, 10)).bodies).toHaveLength(3);

      // A second redaction (of the audit event's neighbour, already redacted: a retry changes nothing) and a third.
      const again = await store.redactions.redact({ sessionId: parentId, seqs: [0], reason: 'again', by: 'admin' });
      if (again.status !== 'redacted' || again.epoch === first.epoch) return;
      expect(await store.redactions.priorEpochs(parentId, again.epoch)).toEqual([first.epoch, result.epoch]);
      expect((await store.read(childId, 0, 10)).map((event) => event.seq)).toEqual([0, 1, 2]);
    });

    // Found by the read-contract property (test/store/read-contract-file.test.ts, seed -228954853): a fork's own
    // snapshot projects its parent's prefix under the fork's epoch, which a redaction of the parent does not change.
    it("a fork's own snapshot is not served once a redaction rewrote its parent's (or grandparent's) prefix", async () => {
      const parentId = `rf-${randomUUID()}`;
      const childId = `${parentId}-c`;
      const grandchildId = `${parentId}-g`;
      const result = await store.commit({ sessionId: parentId, expectedSeq: 0, events: turn });
      const child = await store.forks.create({ parentId, parentEpoch: result.epoch, atSeq: 2, childId, events: [] });
      if (child.status !== 'forked') throw new Error(child.status);
      const grandchild = await store.forks.create({
        parentId: childId,
        parentEpoch: child.epoch,
        atSeq: 2,
        childId: grandchildId,
        events: [],
      });
      if (grandchild.status !== 'forked') throw new Error(grandchild.status);
      for (const [id, epoch] of [
        [childId, child.epoch],
        [grandchildId, grandchild.epoch],
      ] as const) {
        const projector = new MessageProjector();
        for (const event of await store.read(id, 0, 10)) projector.apply(event);
        const state = projector.exportState();
        expect(await store.snapshots.put(id, { epoch, seq: 2, state })).toBe('written');
        expect(await store.snapshots.get(id)).toMatchObject({ status: 'found', snapshot: { epoch, seq: 2 } });
        expect(JSON.stringify(await store.snapshots.get(id))).toContain(SECRET);
      }

      const redacted = await store.redactions.redact({ sessionId: parentId, seqs: [1], reason: 'leak', by: 'admin' });
      expect(redacted).toMatchObject({ status: 'redacted', seqs: [1] });
      for (const id of [childId, grandchildId]) {
        const read = await store.snapshots.get(id);
        expect(read).toMatchObject({ status: 'none', reason: 'other-epoch', headSeq: 2 });
        expect(JSON.stringify(read)).not.toContain(SECRET);
      }
    });

    it(`priorEpochs follows a chain longer than ${MAX_PRIOR_EPOCHS} redactions back, capped, most recent first`, async () => {
      const sessionId = `rf-${randomUUID()}`;
      const first = await store.commit({ sessionId, expectedSeq: 0, events: turn });
      if (first.status !== 'committed') throw new Error(`expected a commit, got ${first.status}`);
      const epochs = [first.epoch];
      let next = 3;
      for (let round = 0; round < MAX_PRIOR_EPOCHS + 2; round++) {
        const leak = { type: 'user/message', data: { role: 'user', content: `${SECRET}-${round}` } };
        committed(await store.commit({ sessionId, expectedSeq: next, events: [leak] }));
        const result = await store.redactions.redact({ sessionId, seqs: [next], reason: 'leak', by: 'admin' });
        if (result.status !== 'redacted') throw new Error(`expected a redaction, got ${result.status}`);
        epochs.push(result.epoch);
        next = (result.auditSeq ?? next) + 1;
      }
      const newestFirst = [...epochs].reverse();
      expect(await store.redactions.priorEpochs(sessionId, newestFirst[0]!)).toEqual(
        newestFirst.slice(1, 1 + MAX_PRIOR_EPOCHS),
      );
      expect(await store.redactions.priorEpochs(sessionId, epochs[3]!)).toEqual([epochs[2], epochs[1], epochs[0]]);
      expect(await store.redactions.priorEpochs(sessionId, epochs[0]!)).toEqual([]);
    });

    it('an epoch no redaction made names no prior epoch, and a parent with forks cannot be deleted', async () => {
      const parentId = `rf-${randomUUID()}`;
      const childId = `${parentId}-c`;
      const result = await store.commit({ sessionId: parentId, expectedSeq: 0, events: turn });
      expect(committed(result)).toHaveLength(3);
      await store.forks.create({ parentId, parentEpoch: result.epoch, atSeq: 2, childId, events: [] });
      await expect(store.deleteSession(parentId)).rejects.toMatchObject({ code: 'HAS_FORKS' });
      expect(await store.redactions.priorEpochs(parentId, result.epoch)).toEqual([]);
    });
  });
}

describeRedactForks('memory', memoryBackend);
describeRedactForks('redis', redisBackend);
describeRedactForks('redis cluster', clusterBackend);
