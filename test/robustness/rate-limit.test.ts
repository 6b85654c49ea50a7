import { describe, expect } from 'vitest';
import { CloseCode } from '../../shared/protocol.ts';
import { test } from '../helpers/fixtures.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

const note = (n: number) => ({ type: 'test/note', data: { n } });

const it = test
  .extend('keyPrefix', { scope: 'file' }, 'rate:')
  .extend(
    'hubConfig',
    { scope: 'file' },
    { limits: { appendsPerSecond: 5, appendBurst: 5, rateLimitCloseAfterMs: 500 } },
  );

describe('append rate limit per connection', () => {
  it('refuses appends above the rate with RATE_LIMITED (nothing written), without touching other connections', async ({
    redisHub: hub,
    redisStore: store,
  }) => {
    const greedy = await RawHubClient.connect(hub.wsUrl);
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, n) => greedy.request({ type: 'append', sessionId: 'rate/a', events: [note(n)] })),
    );
    const acks = replies.filter((reply) => reply.type === 'ack');
    const limited = replies.filter((reply) => reply.type === 'error' && reply.code === 'RATE_LIMITED');
    expect(acks.length).toBeGreaterThanOrEqual(5);
    expect(limited.length).toBeGreaterThan(0);
    expect(acks.length + limited.length).toBe(12);
    expect(limited[0]).toMatchObject({ details: { retryAfterMs: expect.any(Number), limit: 5 } });
    expect((await store.head('rate/a')).headSeq).toBe(acks.length - 1);

    const polite = await RawHubClient.connect(hub.wsUrl);
    expect(await polite.request({ type: 'append', sessionId: 'rate/a', events: [note(99)] })).toMatchObject({
      type: 'ack',
    });
    await Promise.all([greedy.close(), polite.close()]);
  });

  it('closes a connection that keeps flooding with 4029; the hub keeps serving others', async ({
    redisHub: hub,
    redisStore: store,
  }) => {
    const flooder = await RawHubClient.connect(hub.wsUrl);
    const watcher = await RawHubClient.connect(hub.wsUrl);
    await watcher.request({ type: 'subscribe', sessionId: 'rate/b' });
    let sent = 0;
    while (flooder.ws.readyState === flooder.ws.OPEN) {
      expect(sent).toBeLessThan(100_000);
      const reply = await flooder
        .request({ type: 'append', sessionId: 'rate/b', events: [note(sent)] })
        .catch(() => undefined);
      if (reply?.type === 'error') expect(reply.code).toBe('RATE_LIMITED');
      sent++;
    }
    expect((await flooder.closed).code).toBe(CloseCode.RATE_LIMITED);
    const writer = await RawHubClient.connect(hub.wsUrl);
    const ack = await writer.request({ type: 'append', sessionId: 'rate/b', events: [note(-1)] });
    expect(ack).toMatchObject({ type: 'ack' });
    await watcher.waitFor(
      (m) =>
        m.type === 'events' && m.events.some((event) => event.data !== null && (event.data as { n: number }).n === -1),
    );
    const stored = await store.read('rate/b', 0, 100_000);
    expect(watcher.events('rate/b')).toEqual(stored);
    await Promise.all([writer.close(), watcher.close()]);
  });
});
