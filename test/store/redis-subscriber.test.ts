import type { Redis } from 'ioredis';
import { describe, expect, vi } from 'vitest';
import type { CommittedBatch } from '../../server/store/event-store.ts';
import type { RedisStore } from '../../server/store/redis/redis-store.ts';
import { test } from '../helpers/fixtures.ts';

const WAIT = { timeout: 15_000, interval: 50 };

/** What the stores reported. */
const reported: Error[] = [];
const it = test
  .extend('keyPrefix', { scope: 'file' }, 'sub:')
  .extend('redisStoreOptions', { scope: 'file' }, { onError: (error: Error) => void reported.push(error) });

/** The notification (subscriber) connection of the Redis engine: its failures must be visible, never silent. */
describe('RedisStore notification connection', () => {
  let admin: Redis;
  /** Opens a store on the file's Redis that connects as `user` (password `pw`). */
  let open: (user: string) => Promise<RedisStore>;

  it.beforeAll(({ redis, admin: connection, openRedisStore }) => {
    admin = connection;
    open = (user) => openRedisStore({ url: `redis://${user}:pw@127.0.0.1:${redis.port}` });
  });

  it('fails reads of a watched session while its SUBSCRIBE is refused, and retries it', async () => {
    await admin.call('ACL', 'SETUSER', 'nochannels', 'on', '>pw', '~*', 'resetchannels', '+@all');
    const store = await open('nochannels');
    const batches: CommittedBatch[] = [];
    store.watch('w', { onCommitted: (batch) => void batches.push(batch), onResync: () => undefined });
    // "watch, then read" must not pretend that notifications flow.
    await expect(store.read('w', 0, 10)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await expect(store.readStoredPage('w', 0, 10)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(reported.some((error) => /NOPERM|permission/i.test(String(error.message)))).toBe(true);
    // Once allowed, the next read subscribes again and notifications flow.
    await admin.call('ACL', 'SETUSER', 'nochannels', 'allchannels');
    expect(await store.read('w', 0, 10)).toEqual([]);
    const writer = await open('default');
    await writer.commit({ sessionId: 'w', expectedSeq: 0, events: [{ type: 'test/n', data: {} }] });
    await vi.waitFor(() => expect(batches.map((batch) => batch.events.length)).toEqual([1]), WAIT);
  });

  it('is not ready (ping rejects) while the notification connection is down', async () => {
    await admin.call('ACL', 'SETUSER', 'flaky', 'on', '>pw', '~*', 'allchannels', '+@all');
    const store = await open('flaky');
    await expect(store.ping()).resolves.toBeUndefined();
    store.watch('p', { onCommitted: () => undefined, onResync: () => undefined });
    await store.read('p', 0, 1); // the subscriber is in pub/sub mode now
    // The subscriber cannot come back (its password changed), while the command connection stays up.
    await admin.call('ACL', 'SETUSER', 'flaky', 'resetpass', '>other');
    await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    await vi.waitFor(() => expect(store.ping()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' }), WAIT);
    expect(await store.head('still-answers')).toMatchObject({ headSeq: -1 });
    await admin.call('ACL', 'SETUSER', 'flaky', 'resetpass', '>pw');
    await vi.waitFor(() => expect(store.ping()).resolves.toBeUndefined(), WAIT);
  });
});
