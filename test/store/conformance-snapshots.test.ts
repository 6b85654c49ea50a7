// The EventStore conformance suite, snapshots: what `store.snapshots` keeps and serves (docs/storage.md#snapshots).
// Every engine passes it, on each backend of conformance-backends.ts.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { MessageProjector, type ProjectorState, type SessionEvent } from '../../shared/index.ts';
import type { EventStore, ValidatedDraft } from '../../server/store/event-store.ts';
import type { SessionSnapshot } from '../../server/store/snapshot-store.ts';
import { clusterBackend, memoryBackend, redisBackend, type BackendTest } from './conformance-backends.ts';
import { committed } from './conformance-helpers.ts';

const userMessages = (count: number, label = 'm'): ValidatedDraft[] =>
  Array.from({ length: count }, (_, index) => ({
    type: 'user/message',
    data: { role: 'user', content: `${label}${index}` },
    surfaceOp: 'append',
  }));

function stateOf(events: readonly SessionEvent[]): ProjectorState {
  const projector = new MessageProjector();
  projector.applyAll(events);
  return projector.exportState();
}

function snapshotOf(epoch: string, events: readonly SessionEvent[]): SessionSnapshot {
  return { epoch, seq: events.length - 1, state: stateOf(events) };
}

function describeSnapshotConformance(name: string, it: BackendTest): void {
  describe(`EventStore conformance, snapshots: ${name}`, () => {
    let a: EventStore;
    let b: EventStore;
    const newSession = (): string => `snap-${randomUUID()}`;

    it.beforeAll(async ({ backend }) => {
      a = await backend.open();
      b = await backend.open();
    });

    it('keeps a snapshot per session and serves it, verified, from any node, with the head read with it', async () => {
      const sessionId = newSession();
      expect(await a.snapshots.get(sessionId)).toEqual({
        status: 'none',
        reason: 'missing',
        epoch: undefined,
        headSeq: -1,
      });
      const result = await a.commit({ sessionId, expectedSeq: 0, events: userMessages(5) });
      const events = committed(result);
      expect(await b.snapshots.get(sessionId)).toMatchObject({
        status: 'none',
        reason: 'missing',
        epoch: result.epoch,
      });
      const snapshot = snapshotOf(result.epoch, events.slice(0, 3));
      expect(await a.snapshots.put(sessionId, snapshot)).toBe('written');
      const read = await b.snapshots.get(sessionId);
      expect(read).toEqual({ status: 'found', snapshot, headSeq: 4 });
      if (read.status === 'found') expect(MessageProjector.fromState(read.snapshot.state).messages).toHaveLength(3);
      // A later one replaces it; an earlier one does not replace a later one; the same seq may be rewritten.
      const later = snapshotOf(result.epoch, events);
      expect(await b.snapshots.put(sessionId, later)).toBe('written');
      expect(await a.snapshots.put(sessionId, snapshot)).toBe('stale');
      expect(await a.snapshots.put(sessionId, later)).toBe('written');
      expect(await a.snapshots.get(sessionId)).toEqual({ status: 'found', snapshot: later, headSeq: 4 });
    });

    it('writes only in the session epoch and within its log', async () => {
      const sessionId = newSession();
      expect(await a.snapshots.put(sessionId, { epoch: 'nope', seq: 0, state: stateOf([]) })).toBe('stale');
      const result = await a.commit({ sessionId, expectedSeq: 0, events: userMessages(2) });
      const events = committed(result);
      expect(await a.snapshots.put(sessionId, snapshotOf('another-epoch', events))).toBe('stale');
      const beyond: SessionSnapshot = {
        ...snapshotOf(result.epoch, events),
        seq: 2,
        state: { ...stateOf(events), length: 3 },
      };
      expect(await a.snapshots.put(sessionId, beyond)).toBe('stale');
      expect(await a.snapshots.get(sessionId)).toMatchObject({ status: 'none', reason: 'missing' });
    });

    it('never serves a snapshot of an older epoch: deleting the session deletes it, a new epoch starts clean', async () => {
      const sessionId = newSession();
      const first = await a.commit({ sessionId, expectedSeq: 0, events: userMessages(3, 'old') });
      expect(await a.snapshots.put(sessionId, snapshotOf(first.epoch, committed(first)))).toBe('written');
      expect(await a.deleteSession(sessionId)).toBe(true);
      expect(await b.snapshots.get(sessionId)).toEqual({
        status: 'none',
        reason: 'missing',
        epoch: undefined,
        headSeq: -1,
      });
      const second = await b.commit({ sessionId, expectedSeq: 0, events: userMessages(4, 'new') });
      expect(second.epoch).not.toBe(first.epoch);
      expect(await a.snapshots.get(sessionId)).toMatchObject({ status: 'none', reason: 'missing', headSeq: 3 });
      // A writer still holding the old epoch's snapshot cannot put it back.
      expect(await a.snapshots.put(sessionId, snapshotOf(first.epoch, committed(first)))).toBe('stale');
    });

    it('leases a session to one builder at a time across nodes; a released or lapsed lease is free again', async () => {
      const sessionId = newSession();
      expect(await a.snapshots.lease(sessionId, 'node-a', 10_000)).toBe(true);
      expect(await b.snapshots.lease(sessionId, 'node-b', 10_000)).toBe(false);
      await b.snapshots.release(sessionId, 'node-b'); // not the holder: nothing happens
      expect(await b.snapshots.lease(sessionId, 'node-b', 10_000)).toBe(false);
      await a.snapshots.release(sessionId, 'node-a');
      expect(await b.snapshots.lease(sessionId, 'node-b', 1)).toBe(true);
      await expect
        .poll(() => a.snapshots.lease(sessionId, 'node-a', 10_000), { timeout: 5000, interval: 5 })
        .toBe(true);
    });

    it("counts a session's bytes across nodes towards the byte trigger, in its epoch only", async () => {
      const sessionId = newSession();
      // No epoch yet: nothing is counted, whatever the size.
      expect(await a.snapshots.countBytes(sessionId, 'nope', 5000, 1000)).toBe(false);
      const first = await a.commit({ sessionId, expectedSeq: 0, events: userMessages(1) });
      expect(await a.snapshots.countBytes(sessionId, 'another-epoch', 5000, 1000)).toBe(false);
      // Two nodes add up: 400 + 400 < 1000, the third reaches it and the count starts again from 0.
      expect(await a.snapshots.countBytes(sessionId, first.epoch, 400, 1000)).toBe(false);
      expect(await b.snapshots.countBytes(sessionId, first.epoch, 400, 1000)).toBe(false);
      expect(await a.snapshots.countBytes(sessionId, first.epoch, 400, 1000)).toBe(true);
      expect(await b.snapshots.countBytes(sessionId, first.epoch, 900, 1000)).toBe(false);
      // The count does not touch the snapshot; deleting the session deletes the count.
      expect(await b.snapshots.get(sessionId)).toMatchObject({ status: 'none', reason: 'missing' });
      expect(await a.deleteSession(sessionId)).toBe(true);
      expect(await a.snapshots.countBytes(sessionId, first.epoch, 900, 1000)).toBe(false);
      const second = await b.commit({ sessionId, expectedSeq: 0, events: userMessages(1) });
      expect(await b.snapshots.countBytes(sessionId, second.epoch, 900, 1000)).toBe(false);
      expect(await a.snapshots.countBytes(sessionId, second.epoch, 100, 1000)).toBe(true);
    });

    it('refuses bad session ids', async () => {
      await expect(a.snapshots.get('')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      await expect(a.snapshots.lease('x'.repeat(10_000), 'n', 10)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    });
  });
}

describeSnapshotConformance('memory', memoryBackend);
describeSnapshotConformance('redis', redisBackend);
describeSnapshotConformance('redis cluster', clusterBackend);
