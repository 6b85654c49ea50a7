import { Redis } from 'ioredis';
import { describe, expect, vi } from 'vitest';
import type { CommittedBatch, ValidatedDraft } from '../../server/store/event-store.ts';
import { sessionIdOfChannel, sessionKeys } from '../../server/store/redis/redis-keys.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { test as it } from '../helpers/fixtures.ts';

const WAIT = { timeout: 10_000, interval: 10 };
const drafts = (label: string): ValidatedDraft[] => [{ type: 'test/event', data: { label } }];

/** The hash tag Redis Cluster hashes for a key: the text between the first `{` and the next `}`. */
function hashTag(key: string): string | undefined {
  const open = key.indexOf('{');
  const close = key.indexOf('}', open + 1);
  return open < 0 || close <= open + 1 ? undefined : key.slice(open + 1, close);
}

describe('RedisStore key layout', () => {
  it('puts every key of a session under one hash tag, with the prefix (default sh:)', async ({
    redis: server,
    admin: redis,
  }) => {
    // Opened without a key prefix (the fixtures' stores always get one).
    const defaultPrefix = await RedisStore.open({ url: server.url });
    try {
      const sessionId = 'user:42/chat 😀 [x]*?';
      await defaultPrefix.commit({ sessionId, expectedSeq: 0, events: drafts('x'), idempotencyKey: 'k' });
      const keys = (await redis.keys('sh:*')).sort();
      expect(keys).toEqual([`sh:{${sessionId}}:epoch`, `sh:{${sessionId}}:idem`, `sh:{${sessionId}}:log`]);
      for (const key of keys) expect(hashTag(key)).toBe(sessionId);
      expect(hashTag(defaultPrefix.keys(sessionId).channel)).toBe(sessionId);
      expect(await redis.type(`sh:{${sessionId}}:log`)).toBe('stream');
      const [[id]] = (await redis.xrange(`sh:{${sessionId}}:log`, '-', '+')) as [[string, string[]]];
      expect(id).toBe('0-1');
    } finally {
      await defaultPrefix.close();
    }
  });

  it('keeps stores with different key prefixes apart: logs, epochs and notifications', async ({
    redis: server,
    admin: redis,
    openRedisStore,
  }) => {
    // A template connection's own key prefix and laziness do not leak into the store.
    const template = new Redis(server.url, { keyPrefix: 'ignored:', lazyConnect: true });
    const tenantA = await openRedisStore({ redis: template, keyPrefix: 'a:' });
    const tenantB = await openRedisStore({ keyPrefix: 'b:' });
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

  it('refuses a key prefix with braces', ({ redis: server }) => {
    expect(() => new RedisStore({ url: server.url, keyPrefix: 'x{y}:' })).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
  });
});

describe('notification channels', () => {
  it('name their session: the notifications find it back without a map from channels to sessions', () => {
    for (const sessionId of ['s', 'user:42/chat 😀 [x]*?', 'x:ch', ':']) {
      expect(sessionIdOfChannel('p:', sessionKeys('p:', sessionId).channel)).toBe(sessionId);
      expect(sessionIdOfChannel('', sessionKeys('', sessionId).channel)).toBe(sessionId);
      expect(sessionIdOfChannel('q:', sessionKeys('p:', sessionId).channel)).toBeUndefined();
      expect(sessionIdOfChannel('p:', sessionKeys('p:', sessionId).log)).toBeUndefined();
    }
  });
});
