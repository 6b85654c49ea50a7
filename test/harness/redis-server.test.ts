import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisServer } from '../helpers/redis-server.ts';

describe('test harness: RedisServer', () => {
  const servers: RedisServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  it('keeps data across a SIGKILL restart only with an append-only file', async () => {
    const durable = await RedisServer.start({ appendOnly: true, appendFsync: 'always' });
    const volatile = await RedisServer.start();
    servers.push(durable, volatile);
    expect(durable.port).not.toBe(volatile.port);

    for (const server of [durable, volatile]) {
      const client = new Redis(server.url);
      await client.set('k', 'v');
      client.disconnect();
      await server.restart();
    }
    const durableClient = new Redis(durable.url);
    const volatileClient = new Redis(volatile.url);
    expect(await durableClient.get('k')).toBe('v');
    expect(await volatileClient.get('k')).toBeNull();
    durableClient.disconnect();
    volatileClient.disconnect();
  });
});
