// The EventStore conformance suite, part two: what reads and watchers see (ranges, pages with their epoch, stored
// pages, data round-trips, delivery to watchers and its stop), listing and deletion, request validation, ping. Part
// one (commit semantics) is conformance-commit.test.ts. Every engine passes both, on each backend of
// conformance-backends.ts.
import { randomUUID } from 'node:crypto';
import { describe, expect, vi } from 'vitest';
import { type SessionEvent } from '../../shared/index.ts';
import { encodeMsgpackValue } from '../../shared/codec.ts';
import { NO_EPOCH, type EventStore, type ValidatedDraft } from '../../server/store/event-store.ts';
import { clusterBackend, memoryBackend, redisBackend, type BackendTest } from './conformance-backends.ts';
import { committed, drafts, recorder, WAIT } from './conformance-helpers.ts';
import { EncodedEventPage } from '../../server/store/codec/encoded-page.ts';
import { decodeEventBody, toSessionEvent } from '../../server/store/codec/event-codec.ts';
import { readEventPage } from '../../server/store/codec/stored-events.ts';

/** The read, watch, listing and deletion half of the conformance suite every `EventStore` engine must pass. */
function describeReadWatchConformance(name: string, it: BackendTest): void {
  describe(`EventStore conformance: ${name}`, () => {
    let a: EventStore;
    let b: EventStore;
    const newSession = (): string => `s-${randomUUID()}`;

    it.beforeAll(async ({ backend }) => {
      a = await backend.open();
      b = await backend.open();
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

    it('reads a page together with its epoch, and reports no epoch for a session without one', async () => {
      const sessionId = newSession();
      expect(await readEventPage(a, sessionId, 0, 10)).toEqual({ epoch: undefined, events: [] });
      await a.head(sessionId);
      expect(await readEventPage(b, sessionId, 0, 10)).toEqual({ epoch: undefined, events: [] });
      const result = await a.commit({ sessionId, expectedSeq: 0, events: drafts(3) });
      const { epoch } = result;
      const events = committed(result);
      expect(await readEventPage(b, sessionId, 1, 10)).toEqual({ epoch, events: events.slice(1) });
      expect(await readEventPage(b, sessionId, 0, 2)).toEqual({ epoch, events: events.slice(0, 2) });
      await a.deleteSession(sessionId);
      expect(await readEventPage(b, sessionId, 0, 10)).toEqual({ epoch: undefined, events: [] });
      expect(await b.head(sessionId)).toEqual({ epoch: NO_EPOCH, headSeq: -1 });
      await expect(readEventPage(a, sessionId, -1, 10)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    });

    it('reads stored pages: the events of read as stored bodies with seq and time, spliced byte for byte', async () => {
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
        const plain = { events: await b.read(sessionId, fromSeq, limit) };
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

    it('lists only the sessions under a prefix, glob characters in ids taken literally', async () => {
      const tenant = `t-${randomUUID().slice(0, 8)}`;
      const ids = [`${tenant}[1]/a`, `${tenant}[1]/b*`, `${tenant}1/c`, `${tenant}?/d`];
      for (const id of ids) await a.commit({ sessionId: id, expectedSeq: 0, events: drafts(1) });
      expect((await b.listSessions(`${tenant}[1]/`)).sort()).toEqual([`${tenant}[1]/a`, `${tenant}[1]/b*`]);
      expect(await b.listSessions(`${tenant}?/`)).toEqual([`${tenant}?/d`]);
      expect((await b.listSessions(tenant)).sort()).toEqual([...ids].sort());
      expect(await b.listSessions(`${tenant}-none/`)).toEqual([]);
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

    it('answers ping while the backend is up', async () => {
      await expect(a.ping()).resolves.toBeUndefined();
    });
  });
}

describeReadWatchConformance('memory', memoryBackend);
describeReadWatchConformance('redis', redisBackend);
describeReadWatchConformance('redis cluster', clusterBackend);
