import type { Redis } from 'ioredis';
import { describe, expect, vi } from 'vitest';
import type { ValidatedDraft } from '../../server/store/event-store.ts';
import { StoreDataError } from '../../server/store/event-store.ts';
import { EncodedEventPage } from '../../server/store/codec/encoded-page.ts';
import type { RedisStore } from '../../server/store/redis/redis-store.ts';
import { test } from '../helpers/fixtures.ts';
import { readEventPage } from '../../server/store/codec/stored-events.ts';

const WAIT = { timeout: 10_000, interval: 10 };
const drafts = (count: number): ValidatedDraft[] =>
  Array.from({ length: count }, (_, index) => ({ type: 'test/event', data: { index } }));

/** What the store reported. */
const reported: Error[] = [];
const it = test.extend(
  'redisStoreOptions',
  { scope: 'file' },
  { onError: (error: Error) => void reported.push(error) },
);

describe('RedisStore data verification and epoch edge cases', () => {
  let redis: Redis;
  let store: RedisStore;

  it.beforeAll(({ admin, redisStore }) => {
    redis = admin;
    store = redisStore;
  });

  it('gives a log whose epoch key vanished a new epoch with its next commit, keeping the events readable', async () => {
    const events = await store.commit({ sessionId: 'lost-epoch', expectedSeq: 0, events: drafts(2) });
    await redis.del(store.keys('lost-epoch').epoch);
    expect(await store.head('lost-epoch')).toEqual({ epoch: '', headSeq: 1 });
    expect(await store.read('lost-epoch', 0, 10)).toEqual(events.status === 'committed' ? events.events : []);
    const next = await store.commit({ sessionId: 'lost-epoch', expectedSeq: 2, events: drafts(1) });
    expect(next.status === 'committed' && next.epoch !== events.epoch && next.epoch !== '').toBe(true);
  });

  it('refuses to return an entry that does not decode', async () => {
    await store.commit({ sessionId: 'garbage', expectedSeq: 0, events: drafts(1) });
    await redis.xadd(store.keys('garbage').log, '1-1', 'e', Buffer.from([0xc1, 0xff]), 't', '1');
    await expect(store.read('garbage', 0, 10)).rejects.toBeInstanceOf(StoreDataError);
    await expect(store.read('garbage', 1, 10)).rejects.toMatchObject({ code: 'DATA_CORRUPTED' });
    await expect(readEventPage(store, 'garbage', 0, 10)).rejects.toBeInstanceOf(StoreDataError);
    // A stored page hands the bodies over as stored: the codec that reads them refuses the bad one.
    const stored = await store.readStoredPage('garbage', 0, 10);
    expect(stored.bodies).toHaveLength(2);
    expect(() => new EncodedEventPage('garbage', stored)).toThrow(StoreDataError);
    expect(new EncodedEventPage('garbage', await store.readStoredPage('garbage', 0, 1)).count).toBe(1);
    expect(await store.read('garbage', 0, 1)).toHaveLength(1);
  });

  it('refuses a stream with a gap in its ids, and commits nothing onto it', async () => {
    const { log } = store.keys('gap');
    await store.commit({ sessionId: 'gap', expectedSeq: 0, events: drafts(1) });
    await redis.xadd(log, '5-1', 'e', Buffer.from([0x92, 0xa3, 0x61, 0x2f, 0x62, 0xc0]), 't', '1');
    await expect(store.read('gap', 0, 10)).rejects.toThrow(/unexpected stream entry id 5-1/);
    await expect(store.readStoredPage('gap', 0, 10)).rejects.toThrow(/unexpected stream entry id 5-1/);
    await expect(store.commit({ sessionId: 'gap', expectedSeq: 2, events: drafts(3) })).rejects.toBeInstanceOf(
      StoreDataError,
    );
    expect(await redis.xlen(log)).toBe(2);
  });

  it('turns an undecodable notification into a resync and a report, never a delivery', async () => {
    let resyncs = 0;
    let deliveries = 0;
    store.watch('noise', { onCommitted: () => deliveries++, onResync: () => resyncs++ });
    await store.head('noise');
    await redis.publish(store.keys('noise').channel, Buffer.from('0:1:epoch|\xc1'));
    await vi.waitFor(() => expect(resyncs).toBe(1), WAIT);
    expect(deliveries).toBe(0);
    expect(reported.some((error) => error instanceof StoreDataError)).toBe(true);
  });
});
