import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CommittedBatch, ValidatedDraft } from '../../server/store/event-store.ts';
import { StoreUnavailableError } from '../../server/store/event-store.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { RedisServer } from '../helpers/redis-server.ts';

const WAIT = { timeout: 15_000, interval: 50 };
const drafts = (count: number): ValidatedDraft[] =>
  Array.from({ length: count }, (_, index) => ({ type: 'test/event', data: { index } }));

describe('RedisStore while Redis is down', () => {
  let server: RedisServer;
  let writer: RedisStore;
  let reader: RedisStore;
  const reported: Error[] = [];

  beforeAll(async () => {
    server = await RedisServer.start({ appendOnly: true, appendFsync: 'always' });
    const onError = (error: Error): void => void reported.push(error);
    writer = await RedisStore.open({ url: server.url, onError });
    reader = await RedisStore.open({ url: server.url, onError });
  });
  afterAll(async () => {
    await Promise.all([writer.close(), reader.close()]);
    await server.stop();
  });

  it('fails fast with STORE_UNAVAILABLE, writes nothing, then recovers and resyncs watchers', async () => {
    const batches: CommittedBatch[] = [];
    let resyncs = 0;
    reader.watch('s', { onCommitted: (batch) => batches.push(batch), onResync: () => resyncs++ });
    await reader.head('s'); // after watch(): notifications are flowing
    const { epoch } = await writer.commit({ sessionId: 's', expectedSeq: 0, events: drafts(1) });
    await vi.waitFor(() => expect(batches).toHaveLength(1), WAIT);

    await server.kill();
    const failure = await writer.commit({ sessionId: 's', expectedSeq: 1, events: drafts(2) }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect(failure).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await expect(writer.head('s')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await expect(writer.read('s', 0, 10)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await expect(writer.ping()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    // The outage is reported (once per connection and outage), not swallowed.
    await vi.waitFor(() => expect(reported.some((error) => error instanceof StoreUnavailableError)).toBe(true), WAIT);

    await server.restart();
    await vi.waitFor(() => writer.ping(), WAIT);
    await vi.waitFor(() => expect(resyncs).toBeGreaterThanOrEqual(1), WAIT);
    expect(await writer.head('s')).toEqual({ epoch, headSeq: 0 });
    const retried = await writer.commit({ sessionId: 's', expectedSeq: 1, events: drafts(2) });
    expect(retried.status).toBe('committed');
    // Notifications flow again after the resync.
    await vi.waitFor(() => expect(batches.map((batch) => batch.events[0]!.seq)).toEqual([0, 1]), WAIT);
  });
});
