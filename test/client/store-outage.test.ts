import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubClient } from '../../client/index.ts';
import type { EventStore } from '../../server/index.ts';
import { RedisServer } from '../helpers/redis-server.ts';
import { redisStore, startNode, type Node } from './hubs.ts';

const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });

describe('appends through a Redis outage (AOF on: nothing is lost)', () => {
  let redis: RedisServer;
  let store: EventStore;
  let node: Node;
  let client: HubClient;

  beforeAll(async () => {
    redis = await RedisServer.start({ appendOnly: true, appendFsync: 'always' });
    store = await redisStore(redis.url);
    node = await startNode(store);
    client = new HubClient({ url: node.wsUrl, reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
  });
  afterAll(async () => {
    client.close();
    await node.hub.close();
    await store.close();
    await redis.stop();
  });

  it('an append the hub cannot store yet is retried with its key and commits once Redis is back', async () => {
    await client.append('outage/1', user('before'));
    await redis.kill();
    const timedOut = await client.append('outage/1', user('lost'), { timeoutMs: 300 }).catch((error: unknown) => error);
    expect(timedOut).toMatchObject({ code: 'TIMEOUT', details: { lastErrorCode: 'STORE_UNAVAILABLE' } });
    const during = client.append('outage/1', user('during'));
    await redis.restart();
    const [event] = await during;
    expect(event!.seq).toBe(1);
    const log = await store.read('outage/1', 0, 10);
    expect(log.map((stored) => (stored.data as { content: string }).content)).toEqual(['before', 'during']);
  });
});
