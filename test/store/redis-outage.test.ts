import { describe, expect, vi } from 'vitest';
import type { CommittedBatch, ValidatedDraft } from '../../server/store/event-store.ts';
import { StoreUnavailableError } from '../../server/store/event-store.ts';
import { test } from '../helpers/fixtures.ts';

const WAIT = { timeout: 15_000, interval: 50 };
const drafts = (count: number): ValidatedDraft[] =>
  Array.from({ length: count }, (_, index) => ({ type: 'test/event', data: { index } }));

const reported: Error[] = [];
/** The file's Redis keeps an append-only file (a restart keeps the data); its stores report errors here. */
const durable = test
  .extend('redisOptions', { scope: 'file' }, { appendOnly: true, appendFsync: 'always' as const })
  .extend('redisStoreOptions', { scope: 'file' }, { onError: (error: Error): void => void reported.push(error) });

describe('RedisStore while Redis is down', () => {
  durable(
    'fails fast with STORE_UNAVAILABLE, writes nothing, then recovers and resyncs watchers',
    async ({ redis, openRedisStore }) => {
      const writer = await openRedisStore();
      const reader = await openRedisStore();
      const batches: CommittedBatch[] = [];
      let resyncs = 0;
      reader.watch('s', { onCommitted: (batch) => batches.push(batch), onResync: () => resyncs++ });
      await reader.head('s'); // after watch(): notifications are flowing
      const { epoch } = await writer.commit({ sessionId: 's', expectedSeq: 0, events: drafts(1) });
      await vi.waitFor(() => expect(batches).toHaveLength(1), WAIT);

      await redis.kill();
      const failure = await writer
        .commit({ sessionId: 's', expectedSeq: 1, events: drafts(2) })
        .catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(StoreUnavailableError);
      expect(failure).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await expect(writer.head('s')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await expect(writer.read('s', 0, 10)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await expect(writer.ping()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      // The outage is reported (once per connection and outage), not swallowed.
      await vi.waitFor(() => expect(reported.some((error) => error instanceof StoreUnavailableError)).toBe(true), WAIT);

      await redis.restart();
      await vi.waitFor(() => writer.ping(), WAIT);
      await vi.waitFor(() => expect(resyncs).toBeGreaterThanOrEqual(1), WAIT);
      expect(await writer.head('s')).toEqual({ epoch, headSeq: 0 });
      const retried = await writer.commit({ sessionId: 's', expectedSeq: 1, events: drafts(2) });
      expect(retried.status).toBe('committed');
      // Notifications flow again after the resync.
      await vi.waitFor(() => expect(batches.map((batch) => batch.events[0]!.seq)).toEqual([0, 1]), WAIT);
    },
  );
});
