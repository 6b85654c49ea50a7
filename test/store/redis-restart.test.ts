import { describe, expect, vi } from 'vitest';
import type { ValidatedDraft } from '../../server/store/event-store.ts';
import type { RedisStore } from '../../server/store/redis/redis-store.ts';
import { test, type OpenRedisStore } from '../helpers/fixtures.ts';
import type { RedisServer } from '../helpers/redis-server.ts';

const WAIT = { timeout: 15_000, interval: 50 };
const drafts = (count: number): ValidatedDraft[] =>
  Array.from({ length: count }, (_, index) => ({ type: 'test/event', data: { index, text: 'ü😀' } }));

/** Each block of options gets a redis-server of its own (file-scoped fixtures, test/helpers/fixtures.ts). */
const quiet = test.extend('redisStoreOptions', { scope: 'file' }, { onError: (): void => undefined });
const durable = quiet.extend('redisOptions', { scope: 'file' }, { appendOnly: true, appendFsync: 'always' as const });
const volatile = quiet.extend('redisOptions', { scope: 'file' }, { appendOnly: false });

describe('RedisStore across a Redis restart (SIGKILL)', () => {
  async function commitThenRestart(server: RedisServer, openRedisStore: OpenRedisStore) {
    const store: RedisStore = await openRedisStore();
    let epoch = '';
    for (let batch = 0; batch < 3; batch++) {
      const result = await store.commit({ sessionId: 's1', expectedSeq: batch * 2, events: drafts(2) });
      expect(result.status).toBe('committed');
      epoch = result.epoch;
    }
    const before = { epoch };
    const written = await store.read('s1', 0, 100);
    await server.kill();
    await server.restart();
    // The store reconnects on its own.
    const after = await vi.waitFor(() => store.head('s1'), WAIT);
    return { store, before, written, after };
  }

  durable('loses nothing and keeps the epoch with AOF appendfsync always', async ({ redis, openRedisStore }) => {
    const { store, before, written, after } = await commitThenRestart(redis, openRedisStore);
    expect(after).toEqual({ epoch: before.epoch, headSeq: 5 });
    expect(await store.read('s1', 0, 100)).toEqual(written);
    // Idempotency keys survive too, and new commits continue the seqs.
    const next = await store.commit({ sessionId: 's1', expectedSeq: 6, events: drafts(1) });
    expect(next.status === 'committed' && next.events[0]!.seq).toBe(6);
  });

  volatile(
    'leaves the session without an epoch and with an empty log without persistence; its next commit a new one',
    async ({ redis, openRedisStore }) => {
      const { store, before, written, after } = await commitThenRestart(redis, openRedisStore);
      expect(written).toHaveLength(6);
      expect(after).toEqual({ epoch: '', headSeq: -1 });
      expect(await store.read('s1', 0, 100)).toEqual([]);
      const next = await store.commit({ sessionId: 's1', expectedSeq: 0, events: drafts(1) });
      expect(next.status === 'committed' && next.epoch !== before.epoch && next.epoch !== '').toBe(true);
    },
  );
});
