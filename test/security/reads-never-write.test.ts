import { afterAll, beforeAll, describe, expect, vi } from 'vitest';
import type { Redis } from 'ioredis';
import { test, type RedisHubsFixture } from '../helpers/fixtures.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

/** Every key in the Redis, with its value's type: what a read must leave exactly as it was. */
async function snapshot(admin: Redis): Promise<string[]> {
  const keys = await admin.keys('*');
  const typed = await Promise.all(keys.map(async (key) => `${key}:${await admin.type(key)}`));
  return typed.sort();
}

const it = test.extend('keyPrefix', { scope: 'file' }, 'reads-nothing:').extend('hubCount', { scope: 'file' }, 2);

/**
 * Reads write nothing: heads, event pages and subscriptions of sessions nobody wrote leave Redis unchanged (one
 * read-only client cannot keep millions of keys alive); the first commit creates the session's epoch, and a
 * subscriber that waited for it gets the events without a reset.
 */
describe('hub on Redis: no read writes', () => {
  let fixture: RedisHubsFixture;
  it.beforeAll(({ redisHubs }) => {
    fixture = redisHubs;
  });
  let reader: RawHubClient;
  let writer: RawHubClient;
  beforeAll(async () => {
    reader = await RawHubClient.connect(fixture.cluster.nodes[0]!.wsUrl);
    writer = await RawHubClient.connect(fixture.cluster.nodes[1]!.wsUrl);
  });
  afterAll(async () => {
    await Promise.all([reader.close(), writer.close()]);
  });

  it('leaves every key as it was after HTTP heads, pages and presence reads, and subscriptions of unknown sessions', async () => {
    const before = await snapshot(fixture.admin);
    const { url } = fixture.cluster.nodes[0]!;
    const watcher = await RawHubClient.connect(fixture.cluster.nodes[0]!.wsUrl);
    try {
      for (let index = 0; index < 20; index++) {
        const head = await fetch(`${url}/v1/sessions/unknown-${index}`);
        expect(await head.json()).toMatchObject({ epoch: '', headSeq: -1 });
        const page = await fetch(`${url}/v1/sessions/unknown-${index}/events?from=0`);
        expect(await page.json()).toMatchObject({ epoch: '', events: [], headSeq: -1 });
        const presence = await fetch(`${url}/v1/sessions/unknown-${index}/presence`);
        expect(await presence.json()).toMatchObject({ watchers: [] });
        const subscribed = await watcher.request({ type: 'subscribe', sessionId: `unknown-${index}`, presence: true });
        expect(subscribed).toMatchObject({ type: 'subscribed', epoch: '', headSeq: -1 });
      }
      await watcher.waitFor((m) => m.type === 'live' && m.sessionId === 'unknown-19');
      // While subscribed, only the watchers' presence entries exist (they lapse with the subscriptions).
      const during = await snapshot(fixture.admin);
      expect(during.filter((key) => !/:presence:(zset|info:hash)$/.test(key))).toEqual(before);
    } finally {
      await watcher.close();
    }
    // The subscriptions ended with the connection: their presence entries go, and nothing else was ever written.
    await vi.waitFor(async () => expect(await snapshot(fixture.admin)).toEqual(before), { timeout: 10_000 });
  });

  it('creates the epoch with the first commit; a subscriber that waited gets the events without a reset', async () => {
    const sessionId = 'watched-0';
    expect(await reader.request({ type: 'subscribe', sessionId })).toMatchObject({ type: 'subscribed', epoch: '' });
    const ack = await writer.request({ type: 'append', sessionId, events: [{ type: 'x/y', data: 1 }] });
    expect(ack).toMatchObject({ type: 'ack', firstSeq: 0 });
    const epoch = ack.type === 'ack' ? ack.epoch : '';
    expect(epoch).not.toBe('');
    expect(await fixture.admin.get(fixture.cluster.stores[0]!.keys(sessionId).epoch)).toBe(epoch);
    // The subscriber (on the other node) is told the new epoch with the first events, once.
    const first = await reader.waitFor((message) => message.type === 'events' && message.sessionId === sessionId);
    expect(first).toMatchObject({ epoch, events: [{ seq: 0 }] });
    const second = await writer.request({ type: 'append', sessionId, events: [{ type: 'x/y', data: 2 }] });
    expect(second).toMatchObject({ type: 'ack', firstSeq: 1, epoch });
    await reader.waitFor((message) => message.type === 'events' && message.events.some((event) => event.seq === 1));
    expect(reader.seqs(sessionId)).toEqual([0, 1]);
    expect(reader.ofType('reset')).toEqual([]);
    expect(reader.ofType('events').filter((message) => message.epoch !== undefined)).toHaveLength(1);
    // A new subscriber is told the epoch the first commit created.
    const late = await RawHubClient.connect(fixture.cluster.nodes[0]!.wsUrl);
    try {
      expect(await late.request({ type: 'subscribe', sessionId })).toMatchObject({
        type: 'subscribed',
        epoch,
        headSeq: 1,
      });
    } finally {
      await late.close();
    }
  });
});
