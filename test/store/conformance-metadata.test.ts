// The EventStore conformance suite, metadata: what `store.metadata` keeps, merges, bounds, publishes and deletes
// (docs/storage.md#session-metadata). Every engine passes it, on each backend of conformance-backends.ts.
import { randomUUID } from 'node:crypto';
import { describe, expect, it as plainIt, vi } from 'vitest';
import type { EventStore } from '../../server/store/event-store.ts';
import type { SessionMetadata } from '../../server/store/metadata-store.ts';
import { METADATA_LIMITS, MetadataError, parseMetadataPatch } from '../../shared/session-metadata.ts';
import { clusterBackend, memoryBackend, redisBackend, type BackendTest } from './conformance-backends.ts';
import { committed, drafts, recorder, WAIT } from './conformance-helpers.ts';
import { thrown } from '../helpers/thrown.ts';

function describeMetadataConformance(name: string, it: BackendTest): void {
  describe(`EventStore conformance, metadata: ${name}`, () => {
    let a: EventStore;
    let b: EventStore;
    const newSession = (): string => `meta-${randomUUID()}`;

    it.beforeAll(async ({ backend }) => {
      a = await backend.open();
      b = await backend.open();
    });

    it('has no metadata for a session that does not exist, and a patch there writes nothing', async () => {
      const sessionId = newSession();
      expect(await a.metadata.get(sessionId)).toBeUndefined();
      expect(await a.metadata.patch(sessionId, { title: 'x' })).toBeUndefined();
      expect(await a.metadata.get(sessionId)).toBeUndefined();
      expect(await a.metadata.summaries([sessionId])).toEqual([undefined]);
      expect(await a.listSessions('meta-')).not.toContain(sessionId);
    });

    it('merges patches (set, replace, remove with null), counts revisions, and reads the same from any node', async () => {
      const sessionId = newSession();
      committed(await a.commit({ sessionId, expectedSeq: 0, events: drafts(1) }));
      expect(await b.metadata.get(sessionId)).toEqual({ labels: {}, rev: 0 });
      const first = await a.metadata.patch(sessionId, { title: 'Plan the trip', labels: { team: 'red', env: 'dev' } });
      expect(first).toEqual({ title: 'Plan the trip', labels: { env: 'dev', team: 'red' }, rev: 1 });
      const second = await b.metadata.patch(sessionId, { labels: { env: null, tier: 'gold ✓' } });
      expect(second).toEqual({ title: 'Plan the trip', labels: { team: 'red', tier: 'gold ✓' }, rev: 2 });
      const third = await a.metadata.patch(sessionId, { title: null });
      expect(third).toEqual({ labels: { team: 'red', tier: 'gold ✓' }, rev: 3 });
      expect(await b.metadata.get(sessionId)).toEqual(third);
    });

    it('sets creation and lineage fields once: a later initialize keeps what is there', async () => {
      const sessionId = newSession();
      const made = await a.metadata.initialize(sessionId, { parent: 'p/1', forkSeq: 7 });
      expect(made).toMatchObject({ parent: 'p/1', forkSeq: 7, rev: 1 });
      committed(await a.commit({ sessionId, expectedSeq: 0, events: drafts(1) }));
      await b.metadata.initialize(sessionId, { createdAt: 1_700_000_000_000, createdBy: 'alice', parent: 'other' });
      const again = await a.metadata.initialize(sessionId, { createdBy: 'mallory' });
      const expected = { createdAt: 1_700_000_000_000, createdBy: 'alice', parent: 'p/1', forkSeq: 7 };
      expect(again).toEqual({ ...expected, labels: {}, rev: 2 });
      expect(await b.metadata.get(sessionId)).toEqual({ ...expected, labels: {}, rev: 2 });
    });

    it('refuses more labels than the bound after the merge, and writes nothing', async () => {
      const sessionId = newSession();
      committed(await a.commit({ sessionId, expectedSeq: 0, events: drafts(1) }));
      const labels = Object.fromEntries(
        Array.from({ length: METADATA_LIMITS.labels }, (_, index) => [`k${index}`, 'v']),
      );
      expect((await a.metadata.patch(sessionId, { labels }))?.rev).toBe(1);
      const error = await b.metadata.patch(sessionId, { title: 't', labels: { extra: 'v' } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MetadataError);
      expect(error).toMatchObject({ code: 'INVALID_METADATA', field: 'labels' });
      const kept = await a.metadata.get(sessionId);
      expect(kept?.rev).toBe(1);
      expect(kept?.title).toBeUndefined();
      // Replacing one and removing one in the same patch stays within the bound.
      expect((await a.metadata.patch(sessionId, { labels: { k0: null, extra: 'v' } }))?.labels['extra']).toBe('v');
    });

    it('tells the watchers of a session on every node about each change, with its rev', async () => {
      const sessionId = newSession();
      committed(await a.commit({ sessionId, expectedSeq: 0, events: drafts(1) }));
      const seen: SessionMetadata[] = [];
      const watcher = { ...recorder(), onMetadata: (metadata: SessionMetadata) => seen.push(metadata) };
      const stop = b.watch(sessionId, watcher);
      try {
        await b.head(sessionId); // the watch is active once a read of the session returns
        await a.metadata.patch(sessionId, { title: 'one' });
        await a.metadata.patch(sessionId, { labels: { x: 'y' } });
        await vi.waitFor(() => expect(seen.map((metadata) => metadata.rev)).toEqual([1, 2]), WAIT);
        expect(seen[1]).toEqual({ title: 'one', labels: { x: 'y' }, rev: 2 });
        expect(watcher.batches).toEqual([]);
      } finally {
        stop();
      }
    });

    it('deletes the metadata with the session', async () => {
      const sessionId = newSession();
      committed(await a.commit({ sessionId, expectedSeq: 0, events: drafts(1) }));
      await a.metadata.patch(sessionId, { title: 'gone soon' });
      expect(await b.deleteSession(sessionId)).toBe(true);
      expect(await a.metadata.get(sessionId)).toBeUndefined();
      committed(await a.commit({ sessionId, expectedSeq: 0, events: drafts(1) }));
      expect(await a.metadata.get(sessionId)).toEqual({ labels: {}, rev: 0 });
    });

    it('summarizes sessions: head, last activity, size and metadata, with createdAt from the first event', async () => {
      const sessionId = newSession();
      const events = committed(await a.commit({ sessionId, expectedSeq: 0, events: drafts(3) }));
      const more = committed(await a.commit({ sessionId, expectedSeq: 3, events: drafts(2, 'x') }));
      await a.metadata.patch(sessionId, { title: 'sum' });
      const [summary, missing] = await b.metadata.summaries([sessionId, newSession()]);
      expect(missing).toBeUndefined();
      expect(summary).toMatchObject({ sessionId, headSeq: 4, lastActivity: more[1]!.time });
      expect(summary?.metadata).toEqual({ title: 'sum', labels: {}, rev: 1, createdAt: events[0]!.time });
      expect(summary?.bytes).toBeGreaterThan(0);
    });

    it("summarizes a trimmed session: the head counts the trimmed seqs, createdAt is not a later event's time", async () => {
      const sessionId = newSession();
      committed(await a.commit({ sessionId, expectedSeq: 0, events: drafts(4) }));
      const { epoch } = await a.head(sessionId);
      const trim = await a.trim({ sessionId, epoch, beforeSeq: 3 });
      expect(trim.status).toBe('trimmed');
      const [summary] = await b.metadata.summaries([sessionId]);
      expect(summary).toMatchObject({ sessionId, headSeq: 3 });
      expect(summary?.metadata.createdAt).toBeUndefined();
      const trimmedAll = await a.trim({ sessionId, epoch, beforeSeq: 4 });
      expect(trimmedAll.status).toBe('trimmed');
      expect((await b.metadata.summaries([sessionId]))[0]).toMatchObject({ headSeq: 3, lastActivity: undefined });
    });
  });
}

describe('metadata patches from the network', () => {
  plainIt.each([
    [null, ''],
    [{ title: 5 }, 'title'],
    [{ title: 'x'.repeat(METADATA_LIMITS.titleUnits + 1) }, 'title'],
    [{ title: 'bell\u0007' }, 'title'],
    [{ title: '\ud800' }, 'title'],
    [{ owner: 'me' }, 'owner'],
    [{ labels: [] }, 'labels'],
    [{ labels: { 'bad key': 'v' } }, 'labels.bad key'],
    [{ labels: { '-x': 'v' } }, 'labels.-x'],
    [JSON.parse('{"labels":{"__proto__":"v"}}') as unknown, 'labels.__proto__'],
    [{ labels: { k: 1 } }, 'labels.k'],
    [{ labels: { k: 'v'.repeat(METADATA_LIMITS.labelValueUnits + 1) } }, 'labels.k'],
    [{ labels: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v'])) }, 'labels'],
  ])('refuses %j naming the field', (value, field) => {
    const error = thrown(() => parseMetadataPatch(value));
    expect(error).toBeInstanceOf(MetadataError);
    expect(error).toMatchObject({ code: 'INVALID_METADATA', field });
  });

  plainIt('keeps only title and labels, with null for removal', () => {
    const parsed = parseMetadataPatch(JSON.parse('{"title":null,"labels":{"constructor":"p","a.b/c-d_e":null}}'));
    expect(parsed).toEqual({ title: null, labels: { constructor: 'p', 'a.b/c-d_e': null } });
    expect(Object.getPrototypeOf(parsed.labels)).toBe(Object.prototype);
  });
});

describeMetadataConformance('memory', memoryBackend);
describeMetadataConformance('redis', redisBackend);
describeMetadataConformance('redis cluster', clusterBackend);
