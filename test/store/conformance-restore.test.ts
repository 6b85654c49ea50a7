// The EventStore conformance suite, restore: a session's log is built again in a stage beside it (`restore.stage`)
// and put in its place in one atomic step (`restore.swap`) that checks the epoch and copies what was appended since
// the copy; seqs, times, bodies, epoch and idempotency keys stay, and nothing changes unless the swap says `swapped`.
// Every engine passes it, on each backend of conformance-backends.ts (two store instances on one backend: two nodes).
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { EventStore, StoredPage } from '../../server/store/event-store.ts';
import { StoreRequestError } from '../../server/store/event-store.ts';
import { StoreTrimmedError } from '../../server/store/trimmed-error.ts';
import { clusterBackend, memoryBackend, redisBackend, type BackendTest } from './conformance-backends.ts';
import { committed, drafts } from './conformance-helpers.ts';

function describeRestoreConformance(name: string, it: BackendTest): void {
  describe(`EventStore conformance, restore: ${name}`, () => {
    let a: EventStore;
    let b: EventStore;
    const newSession = (): string => `restore-${randomUUID()}`;
    const ttlMs = 60_000;

    it.beforeAll(async ({ backend }) => {
      a = await backend.open();
      b = await backend.open();
    });

    /** A session of `count` events (keyed batches of 5) trimmed below `cut`; the full page read before the trim. */
    async function trimmedSession(count: number, cut: number): Promise<{ sessionId: string; full: StoredPage }> {
      const sessionId = newSession();
      for (let seq = 0; seq < count; seq += 5) {
        committed(await a.commit({ sessionId, expectedSeq: seq, events: drafts(5), idempotencyKey: `k${seq}` }));
      }
      const full = await a.readStoredPage(sessionId, 0, 1000);
      const trim = await a.trim({ sessionId, epoch: full.epoch!, beforeSeq: cut });
      expect(trim).toMatchObject({ status: 'trimmed', firstSeq: cut });
      return { sessionId, full };
    }

    const slice = (page: StoredPage, from: number, to: number) => ({
      bodies: page.bodies.slice(from, to),
      times: page.times.slice(from, to),
    });

    it('stages the prefix and the hot events, then swaps: the log holds every seq again, byte for byte', async () => {
      const { sessionId, full } = await trimmedSession(20, 12);
      expect(await b.restore.stage({ sessionId, firstSeq: 0, ...slice(full, 0, 12), ttlMs })).toEqual({
        status: 'staged',
        nextSeq: 12,
      });
      expect(await a.restore.stage({ sessionId, firstSeq: 12, ...slice(full, 12, 20), ttlMs })).toEqual({
        status: 'staged',
        nextSeq: 20,
      });
      // Not swapped yet: the hot log is as it was.
      expect(await a.head(sessionId)).toEqual({ epoch: full.epoch, headSeq: 19, firstSeq: 12 });
      await expect(a.readStoredPage(sessionId, 0, 10)).rejects.toBeInstanceOf(StoreTrimmedError);
      const swap = await b.restore.swap({ sessionId, epoch: full.epoch!, maxCopy: 100 });
      expect(swap).toEqual({
        status: 'swapped',
        epoch: full.epoch,
        firstSeq: 0,
        headSeq: 19,
        stagedNext: 20,
        copied: 0,
      });
      expect(await a.head(sessionId)).toEqual({ epoch: full.epoch, headSeq: 19 });
      const page = await a.readStoredPage(sessionId, 0, 1000);
      expect(page.times).toEqual(full.times);
      expect(page.bodies.map((body) => Buffer.from(body).toString('hex'))).toEqual(
        full.bodies.map((body) => Buffer.from(body).toString('hex')),
      );
      expect(await a.restore.discard(sessionId)).toBe(false); // the stage became the log
      // Appends go on after the head; keys are kept (a retried batch is a duplicate with its seqs).
      committed(await b.commit({ sessionId, expectedSeq: 20, events: drafts(1) }));
      const retry = await a.commit({ sessionId, expectedSeq: 21, events: drafts(5), idempotencyKey: 'k5' });
      expect(retry).toMatchObject({ status: 'duplicate', firstSeq: 5, lastSeq: 9 });
    });

    it('copies the events appended since the copy, or answers behind when they are more than maxCopy', async () => {
      const { sessionId, full } = await trimmedSession(10, 5);
      await a.restore.stage({ sessionId, firstSeq: 0, ...slice(full, 0, 10), ttlMs });
      for (let seq = 10; seq < 14; seq++) committed(await b.commit({ sessionId, expectedSeq: seq, events: drafts(1) }));
      const behind = await a.restore.swap({ sessionId, epoch: full.epoch!, maxCopy: 3 });
      expect(behind).toMatchObject({ status: 'behind', firstSeq: 5, headSeq: 13, stagedNext: 10, copied: 0 });
      expect(await a.head(sessionId)).toMatchObject({ firstSeq: 5 });
      const swap = await a.restore.swap({ sessionId, epoch: full.epoch!, maxCopy: 4 });
      expect(swap).toMatchObject({ status: 'swapped', firstSeq: 0, headSeq: 13, copied: 4 });
      const events = await a.read(sessionId, 0, 100);
      expect(events.map((event) => event.seq)).toEqual(Array.from({ length: 14 }, (_, seq) => seq));
      expect(await a.read(sessionId, 10, 4)).toEqual(await b.read(sessionId, 10, 4));
    });

    it('changes nothing on another epoch, a stage with a gap, or no stage; a stage must continue', async () => {
      const { sessionId, full } = await trimmedSession(10, 6);
      const epoch = full.epoch!;
      expect(await a.restore.swap({ sessionId, epoch, maxCopy: 10 })).toMatchObject({ status: 'gap', stagedNext: 0 });
      await a.restore.stage({ sessionId, firstSeq: 1, ...slice(full, 1, 4), ttlMs });
      expect(await a.restore.stage({ sessionId, firstSeq: 5, ...slice(full, 5, 6), ttlMs })).toEqual({
        status: 'gap',
        nextSeq: 4,
      });
      // Starts below the hot log's first seq but ends before it: the seqs between would be lost.
      expect(await a.restore.swap({ sessionId, epoch, maxCopy: 10 })).toMatchObject({ status: 'gap', stagedNext: 4 });
      expect(await a.restore.discard(sessionId)).toBe(true);
      // Starts after the hot log's first seq.
      await a.restore.stage({ sessionId, firstSeq: 7, ...slice(full, 7, 10), ttlMs });
      expect(await a.restore.swap({ sessionId, epoch, maxCopy: 10 })).toMatchObject({ status: 'gap' });
      await a.restore.discard(sessionId);
      await a.restore.stage({ sessionId, firstSeq: 0, ...slice(full, 0, 10), ttlMs });
      expect(await a.restore.swap({ sessionId, epoch: 'another-epoch', maxCopy: 10 })).toMatchObject({
        status: 'conflict',
        epoch,
        firstSeq: 6,
      });
      expect(await a.head(sessionId)).toEqual({ epoch, headSeq: 9, firstSeq: 6 });
      // A deleted session loses its stage with it.
      expect(await a.deleteSession(sessionId)).toBe(true);
      expect(await a.restore.discard(sessionId)).toBe(false);
    });

    it('a stage lapses after its ttl', async () => {
      const { sessionId, full } = await trimmedSession(5, 2);
      const request = { sessionId, firstSeq: 0, ...slice(full, 0, 5), ttlMs: 30 };
      expect(await a.restore.stage(request)).toEqual({ status: 'staged', nextSeq: 5 });
      // While it lasts, seq 0 does not continue it; once it lapsed, seq 0 starts a new one.
      await expect
        .poll(async () => (await b.restore.stage(request)).status, { timeout: 10_000, interval: 20 })
        .toBe('staged');
      await a.restore.discard(sessionId);
      expect(await a.head(sessionId)).toMatchObject({ firstSeq: 2 });
    });

    it('refuses malformed requests', async () => {
      const sessionId = newSession();
      const body = new Uint8Array([0x92, 0xa1, 0x78, 0xc0]);
      for (const request of [
        { sessionId, firstSeq: -1, bodies: [body], times: [1], ttlMs },
        { sessionId, firstSeq: 0, bodies: [], times: [], ttlMs },
        { sessionId, firstSeq: 0, bodies: [body], times: [], ttlMs },
        { sessionId, firstSeq: 0, bodies: [body], times: [1], ttlMs: 0 },
      ]) {
        await expect(a.restore.stage(request)).rejects.toBeInstanceOf(StoreRequestError);
      }
      await expect(a.restore.swap({ sessionId, epoch: '', maxCopy: 1 })).rejects.toBeInstanceOf(StoreRequestError);
      await expect(a.restore.swap({ sessionId, epoch: 'e', maxCopy: -1 })).rejects.toBeInstanceOf(StoreRequestError);
    });
  });
}

describeRestoreConformance('memory', memoryBackend);
describeRestoreConformance('redis', redisBackend);
describeRestoreConformance('redis cluster', clusterBackend);
