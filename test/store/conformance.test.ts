import { randomUUID } from 'node:crypto';
import { describe, expect, vi } from 'vitest';
import { type SessionEvent } from '../../shared/index.ts';
import { encodeMsgpackValue } from '../../shared/codec.ts';
import {
  NO_EPOCH,
  type CommitResult,
  type CommittedBatch,
  type EventStore,
  type StoreWatchHandlers,
  type ValidatedDraft,
} from '../../server/store/event-store.ts';
import { clusterBackend, memoryBackend, redisBackend, type BackendTest } from './conformance-backends.ts';
import { EncodedEventPage } from '../../server/store/codec/encoded-page.ts';
import { decodeEventBody, toSessionEvent } from '../../server/store/codec/event-codec.ts';

const WAIT = { timeout: 10_000, interval: 10 };

function drafts(count: number, label = 'e'): ValidatedDraft[] {
  return Array.from({ length: count }, (_, index) => ({ type: 'test/event', data: { label, index } }));
}

function committed(result: CommitResult): readonly SessionEvent[] {
  if (result.status !== 'committed') throw new Error(`expected a commit, got ${result.status}`);
  return result.events;
}

/** A watcher that records what it receives. */
function recorder(): StoreWatchHandlers & { batches: CommittedBatch[]; resyncs: number } {
  const state = {
    batches: [] as CommittedBatch[],
    resyncs: 0,
    onCommitted(batch: CommittedBatch) {
      state.batches.push(batch);
    },
    onResync() {
      state.resyncs++;
    },
  };
  return state;
}

/** The one conformance suite every `EventStore` engine must pass. */
export function describeEventStoreConformance(name: string, it: BackendTest): void {
  describe(`EventStore conformance: ${name}`, () => {
    let a: EventStore;
    let b: EventStore;
    const newSession = (): string => `s-${randomUUID()}`;

    it.beforeAll(async ({ backend }) => {
      a = await backend.open();
      b = await backend.open();
    });

    it('gives an empty session head -1 and no epoch; its first commit a random one, the same on every instance', async () => {
      const sessionId = newSession();
      expect(await a.head(sessionId)).toEqual({ epoch: NO_EPOCH, headSeq: -1 });
      expect(await a.read(sessionId, 0, 10)).toEqual([]);
      const { epoch } = await a.commit({ sessionId, expectedSeq: 0, events: drafts(1) });
      expect(epoch).toMatch(/^[A-Za-z0-9_-]{8,}$/);
      expect(await b.head(sessionId)).toEqual({ epoch, headSeq: 0 });
      const other = newSession();
      await a.commit({ sessionId: other, expectedSeq: 0, events: drafts(1) });
      expect((await a.head(other)).epoch).not.toBe(epoch);
    });

    it('assigns contiguous seqs and one commit time per batch', async () => {
      const sessionId = newSession();
      const first = await a.commit({ sessionId, expectedSeq: 0, events: drafts(3) });
      expect(first.status).toBe('committed');
      const { epoch } = first;
      const firstEvents = committed(first);
      expect(firstEvents.map((event) => event.seq)).toEqual([0, 1, 2]);
      const time = firstEvents[0]!.time;
      expect(Number.isSafeInteger(time) && time > 0).toBe(true);
      expect(firstEvents.every((event) => event.time === time)).toBe(true);
      expect(firstEvents.map((event) => event.data)).toEqual(drafts(3).map((draft) => draft.data));

      const second = committed(await b.commit({ sessionId, expectedSeq: 3, events: drafts(2, 'f') }));
      expect(second.map((event) => event.seq)).toEqual([3, 4]);
      expect(await a.head(sessionId)).toEqual({ epoch, headSeq: 4 });
    });

    it('reads ranges: from 0, from the middle, at the head, beyond the head', async () => {
      const sessionId = newSession();
      const all = committed(await a.commit({ sessionId, expectedSeq: 0, events: drafts(10) }));
      expect(await b.read(sessionId, 0, 100)).toEqual(all);
      expect(await b.read(sessionId, 0, 3)).toEqual(all.slice(0, 3));
      expect(await b.read(sessionId, 3, 4)).toEqual(all.slice(3, 7));
      expect(await b.read(sessionId, 9, 5)).toEqual(all.slice(9));
      expect(await b.read(sessionId, 10, 5)).toEqual([]);
      expect(await b.read(sessionId, 1000, 5)).toEqual([]);
    });

    it('reports an expectedSeq conflict with the head and leaves the log unchanged', async () => {
      const sessionId = newSession();
      const events = committed(await a.commit({ sessionId, expectedSeq: 0, events: drafts(2) }));
      const { epoch } = await a.head(sessionId);
      for (const expectedSeq of [0, 1, 3, 7]) {
        const result = await b.commit({ sessionId, expectedSeq, events: drafts(1, 'late') });
        expect(result).toEqual({ status: 'conflict', epoch, headSeq: 1 });
      }
      expect(await a.read(sessionId, 0, 10)).toEqual(events);
      expect((await a.head(sessionId)).headSeq).toBe(1);
    });

    it('commits a retried batch with the same idempotency key once and answers with the original seqs', async () => {
      const sessionId = newSession();
      await a.commit({ sessionId, expectedSeq: 0, events: drafts(1, 'before') });
      const batch = drafts(2, 'once');
      const original = await a.commit({ sessionId, expectedSeq: 1, events: batch, idempotencyKey: 'k1' });
      const events = committed(original);
      const retry = await b.commit({ sessionId, expectedSeq: 1, events: batch, idempotencyKey: 'k1' });
      expect(retry).toEqual({
        status: 'duplicate',
        epoch: original.epoch,
        firstSeq: 1,
        lastSeq: 2,
        time: events[0]!.time,
      });
      // A retry after other commits (stale expectedSeq) is still a duplicate; key order does not matter.
      await a.commit({ sessionId, expectedSeq: 3, events: drafts(1, 'after') });
      const reordered = batch.map((draft) => ({ data: draft.data, type: draft.type }));
      expect((await a.commit({ sessionId, expectedSeq: 3, events: reordered, idempotencyKey: 'k1' })).status).toBe(
        'duplicate',
      );
      expect(await a.commit({ sessionId, expectedSeq: 4, events: drafts(2, 'other'), idempotencyKey: 'k1' })).toEqual({
        status: 'idempotency-mismatch',
        epoch: original.epoch,
        firstSeq: 1,
        lastSeq: 2,
      });
      const log = await b.read(sessionId, 0, 100);
      expect(log.map((event) => (event.data as { label: string }).label)).toEqual(['before', 'once', 'once', 'after']);
      const other = await a.commit({ sessionId, expectedSeq: 4, events: drafts(1), idempotencyKey: 'k2' });
      expect(committed(other).map((event) => event.seq)).toEqual([4]);
    });

    it('lets exactly one of several commits racing on the same expectedSeq win', async () => {
      const sessionId = newSession();
      await a.head(sessionId);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          (index % 2 === 0 ? a : b).commit({ sessionId, expectedSeq: 0, events: drafts(2, `w${index}`) }),
        ),
      );
      const winners = results.filter((result) => result.status === 'committed');
      expect(winners).toHaveLength(1);
      expect(results.filter((result) => result.status === 'conflict')).toHaveLength(7);
      for (const result of results) if (result.status === 'conflict') expect(result.headSeq).toBe(1);
      expect(await a.read(sessionId, 0, 10)).toEqual(committed(winners[0]!));
    });

    it('delivers committed batches in commit order to watchers on another instance', async () => {
      const sessionId = newSession();
      const remote = recorder();
      const local = recorder();
      b.watch(sessionId, remote);
      a.watch(sessionId, local);
      await b.head(sessionId); // after watch(): notifications are flowing
      await a.head(sessionId);
      const sent: SessionEvent[] = [];
      let epoch = '';
      for (let batch = 0; batch < 5; batch++) {
        const result = await a.commit({ sessionId, expectedSeq: sent.length, events: drafts(batch + 1) });
        sent.push(...committed(result));
        epoch = result.epoch;
      }
      for (const watcher of [remote, local]) {
        await vi.waitFor(() => expect(watcher.batches.flatMap((batch) => batch.events)).toHaveLength(15), WAIT);
        expect(watcher.batches.map((batch) => batch.events.length)).toEqual([1, 2, 3, 4, 5]);
        expect(watcher.batches.flatMap((batch) => batch.events)).toEqual(sent);
        expect(watcher.batches.every((batch) => batch.sessionId === sessionId && batch.epoch === epoch)).toBe(true);
      }
    });

    it('stops delivery to a watcher after its stop function, and not to the others', async () => {
      const sessionId = newSession();
      const stopped = recorder();
      const kept = recorder();
      const stop = b.watch(sessionId, stopped);
      b.watch(sessionId, kept);
      await b.head(sessionId);
      await a.commit({ sessionId, expectedSeq: 0, events: drafts(1) });
      await vi.waitFor(() => expect(stopped.batches).toHaveLength(1), WAIT);
      stop();
      stop();
      await a.commit({ sessionId, expectedSeq: 1, events: drafts(1) });
      await vi.waitFor(() => expect(kept.batches).toHaveLength(2), WAIT);
      expect(stopped.batches).toHaveLength(1);
      // A watcher that comes back after the last one left gets notifications again.
      const again = recorder();
      b.watch(sessionId, again);
      await b.head(sessionId);
      await a.commit({ sessionId, expectedSeq: 2, events: drafts(1) });
      await vi.waitFor(() => expect(again.batches.map((batch) => batch.events[0]!.seq)).toEqual([2]), WAIT);
    });

    it('round-trips data exactly: unicode, floats, big safe integers, nesting, empty containers', async () => {
      const sessionId = newSession();
      const awkward: Record<string, unknown> = {
        text: 'héllo wörld — 日本語 😀👩‍👩‍👧 \u2028\u2029 \u0000 tab\t',
        floats: [0.1, -1.5, 1e-300, 5e-324, 123456.789, 2.5e-7],
        ints: [0, -1, 255, 256, 65536, 4294967295, 4294967296, 9007199254740991, -9007199254740991],
        nested: { a: { b: { c: [[[{ d: [null, true, false] }]]] } } },
        empties: { array: [], object: {}, string: '' },
        '': 'empty key',
        'key with 😀': 1,
      };
      Object.defineProperty(awkward, '__proto__', { value: { own: true }, enumerable: true, writable: true });
      const events: ValidatedDraft[] = [
        { type: 'test/awkward', data: awkward as ValidatedDraft['data'] },
        { type: 'user/message', data: { role: 'user', content: 'hi' }, surfaceOp: 'append' },
        {
          type: 'assistant/message',
          data: { turn: 1, step: 1, message: { role: 'assistant', content: [] } },
          surfaceOp: { op: 'replace', startSeq: 1, endSeq: 1 },
          sourceEventSeqs: [0, 1],
        },
        { type: 'test/values', data: [] },
        { type: 'test/values', data: 'string data' },
        { type: 'test/values', data: null },
        { type: 'test/values', data: -0.25 },
      ];
      const watcher = recorder();
      b.watch(sessionId, watcher);
      await b.head(sessionId);
      const written = committed(await a.commit({ sessionId, expectedSeq: 0, events }));
      const read = await b.read(sessionId, 0, 100);
      await vi.waitFor(() => expect(watcher.batches).toHaveLength(1), WAIT);
      for (const copy of [written, read, watcher.batches[0]!.events]) {
        expect(copy).toStrictEqual(written);
        expect(
          copy.map(({ type, data, surfaceOp, sourceEventSeqs }) => ({ type, data, surfaceOp, sourceEventSeqs })),
        ).toStrictEqual(
          events.map(({ type, data, surfaceOp, sourceEventSeqs }) => ({ type, data, surfaceOp, sourceEventSeqs })),
        );
        const data = copy[0]!.data as Record<string, unknown>;
        expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
        expect(Object.keys(data)).toEqual(Object.keys(awkward));
        expect(Object.getOwnPropertyDescriptor(data, '__proto__')?.value).toEqual({ own: true });
      }
      // What the store hands out from its backend is deep-frozen (the committed result echoes the caller's drafts).
      for (const copy of [read, watcher.batches[0]!.events]) {
        const data = copy[0]!.data as Record<string, unknown>;
        expect(Object.isFrozen(copy[0]) && Object.isFrozen(data)).toBe(true);
        expect(Object.isFrozen((data['nested'] as Record<string, unknown>)['a'])).toBe(true);
      }
    });

    it('rejects invalid session ids and malformed requests with BAD_REQUEST, writing nothing', async () => {
      const badIds = ['', 'a{b}c', 'tab\there', 'x'.repeat(257), '\ud800'];
      for (const sessionId of badIds) {
        await expect(a.head(sessionId)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
        await expect(a.commit({ sessionId, expectedSeq: 0, events: drafts(1) })).rejects.toMatchObject({
          code: 'BAD_REQUEST',
        });
        expect(() => a.watch(sessionId, recorder())).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
      }
      const sessionId = newSession();
      await expect(a.commit({ sessionId, expectedSeq: 0, events: [] })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      await expect(a.commit({ sessionId, expectedSeq: -1, events: drafts(1) })).rejects.toMatchObject({
        code: 'BAD_REQUEST',
      });
      for (const idempotencyKey of ['', 'k'.repeat(257), '\ud800', 'a\udfff']) {
        await expect(a.commit({ sessionId, expectedSeq: 0, events: drafts(1), idempotencyKey })).rejects.toMatchObject({
          code: 'BAD_REQUEST',
        });
      }
      await expect(a.read(sessionId, -1, 10)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      await expect(a.read(sessionId, 0, 0)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      expect((await a.head(sessionId)).headSeq).toBe(-1);
      expect((await a.head('x'.repeat(256))).headSeq).toBe(-1);
    });

    it('lists sessions, and deletes one: new epoch, empty log, watchers told to resync', async () => {
      const sessionId = newSession();
      const { epoch } = await a.commit({ sessionId, expectedSeq: 0, events: drafts(2), idempotencyKey: 'k' });
      expect(await b.listSessions()).toContain(sessionId);
      const watcher = recorder();
      b.watch(sessionId, watcher);
      await b.head(sessionId);
      expect(await a.deleteSession(sessionId)).toBe(true);
      await vi.waitFor(() => expect(watcher.resyncs).toBe(1), WAIT);
      expect(await b.listSessions()).not.toContain(sessionId);
      expect(await b.read(sessionId, 0, 10)).toEqual([]);
      expect(await b.head(sessionId)).toEqual({ epoch: NO_EPOCH, headSeq: -1 });
      // The idempotency keys went with it; the next commit gives the session a new epoch.
      const again = await a.commit({ sessionId, expectedSeq: 0, events: drafts(1), idempotencyKey: 'k' });
      expect(again.status).toBe('committed');
      expect(again.epoch).not.toBe(epoch);
      expect(await a.deleteSession(newSession())).toBe(false);
    });

    it('looks idempotency keys up without writing: known with the same or another batch, unknown, none', async () => {
      const sessionId = newSession();
      const batch = drafts(2, 'keyed');
      expect(await b.lookupKeys({ sessionId, batches: [{ events: batch, idempotencyKey: 'k' }] })).toEqual({
        epoch: undefined,
        keys: [undefined],
      });
      expect(await b.listSessions(sessionId)).toEqual([]); // the lookup created no epoch
      await a.commit({ sessionId, expectedSeq: 0, events: drafts(1, 'before') });
      const original = await a.commit({ sessionId, expectedSeq: 1, events: batch, idempotencyKey: 'k' });
      if (original.status !== 'committed') throw new Error(original.status);
      const time = original.events[0]!.time;
      const lookup = await b.lookupKeys({
        sessionId,
        batches: [
          { events: batch, idempotencyKey: 'k' },
          { events: drafts(1), idempotencyKey: 'unknown' },
          { events: drafts(1) },
        ],
      });
      expect(lookup).toEqual({
        epoch: original.epoch,
        keys: [{ firstSeq: 1, lastSeq: 2, time, sameBatch: true }, undefined, undefined],
      });
      const other = await b.lookupKeys({ sessionId, batches: [{ events: drafts(2, 'other'), idempotencyKey: 'k' }] });
      expect(other.keys).toEqual([{ firstSeq: 1, lastSeq: 2, time, sameBatch: false }]);
      expect(await a.read(sessionId, 0, 10)).toHaveLength(3);
      await expect(
        a.lookupKeys({
          sessionId,
          batches: [
            { events: batch, idempotencyKey: 'k' },
            { events: batch, idempotencyKey: 'k' },
          ],
        }),
      ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    });

    it('lists only the sessions under a prefix, glob characters in ids taken literally', async () => {
      const tenant = `t-${randomUUID().slice(0, 8)}`;
      const ids = [`${tenant}[1]/a`, `${tenant}[1]/b*`, `${tenant}1/c`, `${tenant}?/d`];
      for (const id of ids) await a.commit({ sessionId: id, expectedSeq: 0, events: drafts(1) });
      expect((await b.listSessions(`${tenant}[1]/`)).sort()).toEqual([`${tenant}[1]/a`, `${tenant}[1]/b*`]);
      expect(await b.listSessions(`${tenant}?/`)).toEqual([`${tenant}?/d`]);
      expect((await b.listSessions(tenant)).sort()).toEqual([...ids].sort());
      expect(await b.listSessions(`${tenant}-none/`)).toEqual([]);
    });

    it('refuses a commit whose expectedEpoch is not the current epoch, even at the right length', async () => {
      const sessionId = newSession();
      const { epoch: old } = await a.commit({
        sessionId,
        expectedSeq: 0,
        expectedEpoch: NO_EPOCH,
        events: drafts(2, 'old'),
      });
      await b.deleteSession(sessionId);
      const { epoch: current } = await b.commit({ sessionId, expectedSeq: 0, events: drafts(2, 'new') });
      const stale = await a.commit({ sessionId, expectedSeq: 2, expectedEpoch: old, events: drafts(1, 'stale') });
      expect(stale).toEqual({ status: 'conflict', epoch: current, headSeq: 1 });
      expect((await b.read(sessionId, 0, 10)).map((event) => event.data)).toEqual(
        drafts(2, 'new').map((draft) => draft.data),
      );
      const fresh = await a.commit({ sessionId, expectedSeq: 2, expectedEpoch: current, events: drafts(1, 'ok') });
      expect(fresh.status).toBe('committed');
      // A deleted session has no epoch until its next commit: an old expectedEpoch conflicts.
      await b.deleteSession(sessionId);
      const afterDelete = await a.commit({ sessionId, expectedSeq: 0, expectedEpoch: current, events: drafts(1) });
      expect(afterDelete).toEqual({ status: 'conflict', epoch: NO_EPOCH, headSeq: -1 });
    });

    it('reads a page together with its epoch, and reports no epoch for a session without one', async () => {
      const sessionId = newSession();
      expect(await a.readPage(sessionId, 0, 10)).toEqual({ epoch: undefined, events: [] });
      await a.head(sessionId);
      expect(await b.readPage(sessionId, 0, 10)).toEqual({ epoch: undefined, events: [] });
      const result = await a.commit({ sessionId, expectedSeq: 0, events: drafts(3) });
      const { epoch } = result;
      const events = committed(result);
      expect(await b.readPage(sessionId, 1, 10)).toEqual({ epoch, events: events.slice(1) });
      expect(await b.readPage(sessionId, 0, 2)).toEqual({ epoch, events: events.slice(0, 2) });
      await a.deleteSession(sessionId);
      expect(await b.readPage(sessionId, 0, 10)).toEqual({ epoch: undefined, events: [] });
      expect(await b.head(sessionId)).toEqual({ epoch: NO_EPOCH, headSeq: -1 });
      await expect(a.readPage(sessionId, -1, 10)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    });

    it('group-commits several batches at contiguous seqs with one time and one notification', async () => {
      const sessionId = newSession();
      const watcher = recorder();
      b.watch(sessionId, watcher);
      await b.head(sessionId);
      const result = await a.commitGroup({
        sessionId,
        expectedSeq: 0,
        batches: [
          { events: drafts(2, 'g1'), idempotencyKey: 'g1' },
          { events: drafts(1, 'g2') },
          { events: drafts(3, 'g3'), idempotencyKey: 'g3' },
        ],
      });
      if (result.status !== 'committed') throw new Error(`expected a commit, got ${result.status}`);
      expect(result.events.map((event) => event.seq)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(result.events.map((event) => (event.data as { label: string }).label)).toEqual([
        'g1',
        'g1',
        'g2',
        'g3',
        'g3',
        'g3',
      ]);
      expect(new Set(result.events.map((event) => event.time)).size).toBe(1);
      expect(await b.read(sessionId, 0, 10)).toEqual(result.events);
      await vi.waitFor(() => expect(watcher.batches.flatMap((batch) => batch.events)).toEqual(result.events), WAIT);
      expect(watcher.batches).toHaveLength(1);
      // Each batch's key remembers its own batch.
      const retry = await b.commit({ sessionId, expectedSeq: 6, events: drafts(3, 'g3'), idempotencyKey: 'g3' });
      expect(retry).toMatchObject({ status: 'duplicate', firstSeq: 3, lastSeq: 5, time: result.events[0]!.time });
      const first = await b.commit({ sessionId, expectedSeq: 6, events: drafts(2, 'g1'), idempotencyKey: 'g1' });
      expect(first).toMatchObject({ status: 'duplicate', firstSeq: 0, lastSeq: 1 });
    });

    it('writes nothing of a group when one of its keys is known, and says which', async () => {
      const sessionId = newSession();
      await a.commit({ sessionId, expectedSeq: 0, events: drafts(1, 'k'), idempotencyKey: 'known' });
      const result = await b.commitGroup({
        sessionId,
        expectedSeq: 1,
        batches: [
          { events: drafts(1, 'new'), idempotencyKey: 'new' },
          { events: drafts(1, 'k'), idempotencyKey: 'known' },
          { events: drafts(2, 'other'), idempotencyKey: 'known-other' },
        ],
      });
      expect(result.status).toBe('keys-known');
      if (result.status !== 'keys-known') return;
      expect(result.keys).toEqual([
        undefined,
        { firstSeq: 0, lastSeq: 0, time: expect.any(Number), sameBatch: true },
        undefined,
      ]);
      expect((await a.head(sessionId)).headSeq).toBe(0);
      // A known key with different content is reported as not the same batch.
      const mismatch = await b.commitGroup({
        sessionId,
        expectedSeq: 1,
        batches: [{ events: drafts(1, 'changed'), idempotencyKey: 'known' }],
      });
      expect(mismatch).toMatchObject({ status: 'keys-known', keys: [{ firstSeq: 0, lastSeq: 0, sameBatch: false }] });
      // Nothing of the refused groups was written: their new keys are still free.
      const ok = await a.commitGroup({
        sessionId,
        expectedSeq: 1,
        batches: [{ events: drafts(1), idempotencyKey: 'new' }],
      });
      expect(ok.status).toBe('committed');
    });

    it('refuses a whole group on a stale expectedSeq or epoch, and a group that repeats a key', async () => {
      const sessionId = newSession();
      const { epoch } = await a.commit({ sessionId, expectedSeq: 0, events: drafts(2) });
      const batches = [{ events: drafts(1), idempotencyKey: 'x' }, { events: drafts(1) }];
      expect(await b.commitGroup({ sessionId, expectedSeq: 1, batches })).toEqual({
        status: 'conflict',
        epoch,
        headSeq: 1,
      });
      const otherEpoch = await b.commitGroup({ sessionId, expectedSeq: 2, expectedEpoch: 'not-it', batches });
      expect(otherEpoch).toEqual({ status: 'conflict', epoch, headSeq: 1 });
      expect((await b.head(sessionId)).headSeq).toBe(1);
      const twice = [
        { events: drafts(1), idempotencyKey: 'same' },
        { events: drafts(1), idempotencyKey: 'same' },
      ];
      await expect(a.commitGroup({ sessionId, expectedSeq: 2, batches: twice })).rejects.toMatchObject({
        code: 'BAD_REQUEST',
      });
      await expect(a.commitGroup({ sessionId, expectedSeq: 2, batches: [] })).rejects.toMatchObject({
        code: 'BAD_REQUEST',
      });
      await expect(
        a.commitGroup({ sessionId, expectedSeq: 2, batches: [{ events: drafts(1) }, { events: [] }] }),
      ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      expect((await a.commitGroup({ sessionId, expectedSeq: 2, batches })).status).toBe('committed');
    });

    it('reads stored pages: the events of readPage as stored bodies with seq and time, spliced byte for byte', async () => {
      const sessionId = newSession();
      const none = await a.readStoredPage(sessionId, 0, 10);
      expect(none).toEqual({ epoch: undefined, firstSeq: 0, bodies: [], times: [] });
      const varied: ValidatedDraft[] = [
        { type: 'test/event', data: { text: 'héllo wörld 😀 日本', big: 2 ** 53 - 1, small: -(2 ** 31) - 1 } },
        { type: 'test/event', data: { nested: [[{ a: [1.5, null, true] }]], 2: 'two', 1: 'one', b: {} } },
        { type: 'user/message', data: { role: 'user', content: 'hi' }, surfaceOp: 'append' },
        {
          type: 'system/summary',
          data: { text: 'summary' },
          surfaceOp: { op: 'replace', startSeq: 0, endSeq: 2 },
          sourceEventSeqs: [0, 1, 2],
        },
        ...drafts(20),
      ];
      const { epoch } = await a.commit({ sessionId, expectedSeq: 0, events: varied });
      for (const [fromSeq, limit] of [
        [0, 100],
        [1, 3],
        [20, 10],
        [24, 10],
      ] as const) {
        const stored = await b.readStoredPage(sessionId, fromSeq, limit);
        const plain = await b.readPage(sessionId, fromSeq, limit);
        expect(stored.epoch).toBe(epoch);
        expect(stored.firstSeq).toBe(fromSeq);
        expect(stored.times).toEqual(plain.events.map((event) => event.time));
        const decoded = stored.bodies.map((body, index) =>
          toSessionEvent(decodeEventBody(body, 'conformance'), fromSeq + index, stored.times[index]!),
        );
        expect(decoded).toEqual(plain.events);
        // What the hub's catch-up makes of it: the same events, and their msgpack byte for byte.
        const page = new EncodedEventPage(sessionId, stored);
        expect(page.count).toBe(plain.events.length);
        expect(page.events()).toEqual(plain.events);
        const encoded = Buffer.from(encodeMsgpackValue(plain.events));
        expect(Buffer.from(page.msgpack()).equals(encoded)).toBe(true);
        const head = Buffer.from([1, 2, 3]);
        expect(Buffer.from(page.msgpack(head)).equals(Buffer.concat([head, encoded]))).toBe(true);
      }
      await a.deleteSession(sessionId);
      expect((await b.readStoredPage(sessionId, 0, 10)).epoch).toBeUndefined();
      await expect(a.readStoredPage(sessionId, -1, 10)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    });

    it('answers ping while the backend is up', async () => {
      await expect(a.ping()).resolves.toBeUndefined();
    });
  });
}

describeEventStoreConformance('memory', memoryBackend);
describeEventStoreConformance('redis', redisBackend);
describeEventStoreConformance('redis cluster', clusterBackend);
