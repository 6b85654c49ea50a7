import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CommittedBatch, ValidatedDraft } from '../../server/store/event-store.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { RedisServer } from '../helpers/redis-server.ts';

const WAIT = { timeout: 10_000, interval: 10 };
const drafts = (label: string): ValidatedDraft[] => [{ type: 'test/event', data: { label } }];

/** The hash tag Redis Cluster hashes for a key: the text between the first `{` and the next `}`. */
function hashTag(key: string): string | undefined {
  const open = key.indexOf('{');
  const close = key.indexOf('}', open + 1);
  return open < 0 || close <= open + 1 ? undefined : key.slice(open + 1, close);
}

describe('RedisStore key layout', () => {
  let server: RedisServer;
  let redis: Redis;
  let defaultPrefix: RedisStore;
  let tenantA: RedisStore;
  let tenantB: RedisStore;

  beforeAll(async () => {
    server = await RedisServer.start();
    redis = new Redis(server.url);
    defaultPrefix = await RedisStore.open({ url: server.url });
    // A template connection's own key prefix and laziness do not leak into the store.
    const template = new Redis(server.url, { keyPrefix: 'ignored:', lazyConnect: true });
    tenantA = await RedisStore.open({ redis: template, keyPrefix: 'a:' });
    tenantB = await RedisStore.open({ url: server.url, keyPrefix: 'b:' });
  });
  afterAll(async () => {
    await Promise.all([defaultPrefix.close(), tenantA.close(), tenantB.close()]);
    redis.disconnect();
    await server.stop();
  });

  it('puts every key of a session under one hash tag, with the prefix (default sh:)', async () => {
    const sessionId = 'user:42/chat 😀 [x]*?';
    await defaultPrefix.commit({ sessionId, expectedSeq: 0, events: drafts('x'), idempotencyKey: 'k' });
    const keys = (await redis.keys('sh:*')).sort();
    expect(keys).toEqual([`sh:{${sessionId}}:epoch`, `sh:{${sessionId}}:idem`, `sh:{${sessionId}}:log`]);
    for (const key of keys) expect(hashTag(key)).toBe(sessionId);
    expect(hashTag(defaultPrefix.keys(sessionId).channel)).toBe(sessionId);
    expect(await redis.type(`sh:{${sessionId}}:log`)).toBe('stream');
    const [[id]] = (await redis.xrange(`sh:{${sessionId}}:log`, '-', '+')) as [[string, string[]]];
    expect(id).toBe('0-1');
  });

  it('keeps stores with different key prefixes apart: logs, epochs and notifications', async () => {
    const received: CommittedBatch[] = [];
    tenantB.watch('shared', { onCommitted: (batch) => received.push(batch), onResync: () => {} });
    const headA = await tenantA.commit({ sessionId: 'shared', expectedSeq: 0, events: drafts('a0') });
    await tenantA.commit({ sessionId: 'shared', expectedSeq: 1, events: drafts('a1') });
    expect((await tenantB.head('shared')).headSeq).toBe(-1);
    const headB = await tenantB.commit({ sessionId: 'shared', expectedSeq: 0, events: drafts('b0') });
    expect(headA.epoch).not.toBe(headB.epoch);
    await vi.waitFor(() => expect(received).toHaveLength(1), WAIT);
    expect(received[0]!.events.map((event) => event.data)).toEqual([{ label: 'b0' }]);
    expect((await tenantA.read('shared', 0, 10)).map((event) => event.data)).toEqual([
      { label: 'a0' },
      { label: 'a1' },
    ]);
    expect(await redis.exists('a:{shared}:log', 'b:{shared}:log')).toBe(2);
    expect(await redis.keys('ignored:*')).toEqual([]);
  });

  it('refuses a key prefix with braces', () => {
    expect(() => new RedisStore({ url: server.url, keyPrefix: 'x{y}:' })).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
  });
});
