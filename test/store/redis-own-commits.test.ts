import { describe, expect, vi } from 'vitest';
import type { CommittedBatch, ValidatedDraft } from '../../server/store/event-store.ts';
import type { RedisStore } from '../../server/store/redis/redis-store.ts';
import { test } from '../helpers/fixtures.ts';

const WAIT = { timeout: 10_000, interval: 5 };
const drafts = (label: string, count = 1): ValidatedDraft[] =>
  Array.from({ length: count }, (_, index) => ({ type: 'test/event', data: { label, index } }));

const it = test.extend('keyPrefix', { scope: 'file' }, 'own:');

/**
 * The Redis engine's watchers see its own commits like any other node's: through pub/sub, exactly once, in order
 * (the hub's own commits reach its subscribers from the append pipeline, not from the store: see session-channel).
 */
describe('RedisStore: own commits to local watchers', () => {
  let a: RedisStore;
  let b: RedisStore;

  it.beforeAll(async ({ openRedisStore }) => {
    a = await openRedisStore();
    b = await openRedisStore();
  });

  it('delivers its own commits exactly once, in order with other nodes', async () => {
    const sessionId = 'own-1';
    const seen: CommittedBatch[] = [];
    a.watch(sessionId, { onCommitted: (batch) => void seen.push(batch), onResync: () => undefined });
    await a.head(sessionId); // the watch is active
    const mine = await a.commit({ sessionId, expectedSeq: 0, events: drafts('a', 2) });
    expect(mine.status).toBe('committed');
    await vi.waitFor(() => expect(seen.map((batch) => batch.events.map((event) => event.seq))).toEqual([[0, 1]]), WAIT);
    await b.commit({ sessionId, expectedSeq: 2, events: drafts('b') });
    await vi.waitFor(() => expect(seen).toHaveLength(2), WAIT);
    await a.commit({ sessionId, expectedSeq: 3, events: drafts('a2') });
    await b.commit({ sessionId, expectedSeq: 4, events: drafts('b2') });
    await vi.waitFor(() => expect(seen.flatMap((batch) => batch.events.map((event) => event.seq))).toContain(4), WAIT);
    expect(seen.flatMap((batch) => batch.events.map((event) => event.seq))).toEqual([0, 1, 2, 3, 4]);
    expect(seen.flatMap((batch) => batch.events)).toEqual(await a.read(sessionId, 0, 10));
  });

  it('delivers a new epoch’s commits after the session was deleted (old own seqs do not hide them)', async () => {
    const sessionId = 'own-2';
    const seen: CommittedBatch[] = [];
    let resyncs = 0;
    a.watch(sessionId, { onCommitted: (batch) => void seen.push(batch), onResync: () => void resyncs++ });
    await a.head(sessionId);
    await a.commit({ sessionId, expectedSeq: 0, events: drafts('old', 3) });
    await b.deleteSession(sessionId);
    await vi.waitFor(() => expect(resyncs).toBe(1), WAIT);
    const fresh = await b.commit({ sessionId, expectedSeq: 0, events: drafts('new') });
    expect(fresh.status).toBe('committed');
    await vi.waitFor(() => expect(seen).toHaveLength(2), WAIT);
    expect(seen[1]!.epoch).not.toBe(seen[0]!.epoch);
    expect(seen[1]!.events.map((event) => event.seq)).toEqual([0]);
  });
});
