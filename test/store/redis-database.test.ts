import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { RedisServer } from '../helpers/redis-server.ts';

// Issue 26 item 6: `redis://host/16` on a Redis with 16 databases (0-15) started, printed `/16` and wrote to
// database 0 (ioredis reports the refused SELECT as an error and goes on). The store must refuse to open.

describe('the database of the Redis URL', () => {
  let server: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    server = await RedisServer.start({ extraArgs: ['--databases', '16'] });
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin.disconnect();
    await server.stop();
  });

  it('a database the Redis does not have: the store does not open, says why, and writes nothing', async () => {
    const reported: Error[] = [];
    const opening = RedisStore.open({
      url: `${server.url}/16`,
      connectTimeoutMs: 1500,
      onError: (error) => reported.push(error),
    });
    await expect(opening).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(reported.map((error) => error.message).join('\n')).toMatch(/DB index is out of range/);
    expect(await admin.dbsize()).toBe(0);
  });

  it('the last database it has (15) is used, and only it', async () => {
    const store = await RedisStore.open({ url: `${server.url}/15`, onError: () => undefined });
    try {
      const result = await store.commit({ sessionId: 's', expectedSeq: 0, events: [{ type: 'test/event', data: {} }] });
      expect(result.status).toBe('committed');
      expect(await admin.dbsize()).toBe(0);
      await admin.select(15);
      expect(await admin.dbsize()).toBeGreaterThan(0);
    } finally {
      await admin.select(0);
      await store.close();
    }
  });
});
