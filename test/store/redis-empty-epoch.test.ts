import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { RedisServer } from '../helpers/redis-server.ts';

const WAIT = { timeout: 10_000, interval: 20 };

/** Reading a session nobody wrote must not leave a key in Redis for good. */
describe('RedisStore: the epoch of an empty session expires unless events are written', () => {
  let server: RedisServer;
  let store: RedisStore;
  let admin: Redis;
  beforeAll(async () => {
    server = await RedisServer.start();
    store = await RedisStore.open({ url: server.url, keyPrefix: 'ee:', emptySessionEpochTtlMs: 300 });
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin.disconnect();
    await store.close();
    await server.stop();
  });

  it('expires an epoch created by a read; the next read gets a new one', async () => {
    const { epoch } = await store.head('ghost');
    const key = store.keys('ghost').epoch;
    expect(await admin.pttl(key)).toBeGreaterThan(0);
    await vi.waitFor(async () => expect(await admin.exists(key)).toBe(0), WAIT);
    const again = await store.head('ghost');
    expect(again.headSeq).toBe(-1);
    expect(again.epoch).not.toBe(epoch);
  });

  it('makes the epoch permanent with the first event, keeping the epoch readers were told', async () => {
    const { epoch } = await store.head('born');
    const key = store.keys('born').epoch;
    const result = await store.commit({ sessionId: 'born', expectedSeq: 0, events: [{ type: 'test/e', data: {} }] });
    expect(result).toMatchObject({ status: 'committed', epoch });
    expect(await admin.pttl(key)).toBe(-1);
  });

  it('also expires an epoch created by a commit that wrote nothing (a refused probe)', async () => {
    const probe = await store.commit({
      sessionId: 'probed',
      expectedSeq: 5,
      events: [{ type: 'test/e', data: {} }],
      idempotencyKey: 'k',
    });
    expect(probe.status).toBe('conflict');
    expect(await admin.pttl(store.keys('probed').epoch)).toBeGreaterThan(0);
  });

  it('refuses a nonsense lifetime', () => {
    expect(() => new RedisStore({ url: server.url, emptySessionEpochTtlMs: 0 })).toThrow(RangeError);
  });
});
