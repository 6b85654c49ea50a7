import { afterAll, beforeAll, describe, expect } from 'vitest';
import { HubClient, type HubClientError } from '../../client/index.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { test } from '../helpers/fixtures.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

/** The first `error` of a subscription, and whether it closed (it must not retry forever). */
function firstError(client: HubClient, sessionId: string): Promise<{ error: HubClientError; closed: boolean }> {
  const subscription = client.subscribe(sessionId);
  return new Promise((resolve) => {
    subscription.once('error', (error) => {
      queueMicrotask(() => resolve({ error, closed: subscription.state === 'closed' }));
    });
  });
}

const it = test.extend('keyPrefix', { scope: 'file' }, 'untrusted:');

describe('an SDK subscriber fed data it cannot trust', () => {
  describe('an event that breaks the log contract (written behind the hub’s back)', () => {
    const store = new MemoryStore();
    let hub: TestHub;
    beforeAll(async () => {
      hub = await startHub({ store });
      // A surface event without its surfaceOp: the hub would refuse it; here the store holds it anyway.
      await store.commit({
        sessionId: 'broken',
        expectedSeq: 0,
        events: [{ type: 'user/message', data: { role: 'user', content: 'no surfaceOp' } }],
      });
    });
    afterAll(async () => {
      await hub.close();
      await store.close();
    });

    it('ends that subscription with a PROTOCOL error naming the seq; the process and the client live on', async () => {
      const client = new HubClient({ url: hub.wsUrl });
      try {
        const { error, closed } = await firstError(client, 'broken');
        expect(error.code).toBe('PROTOCOL');
        expect(error.details).toMatchObject({ seq: 0 });
        expect(closed).toBe(true);
        const fine = client.subscribe('fine');
        const received = new Promise<void>((resolve) => fine.on('event', () => resolve()));
        await client.append('fine', { type: 'app/note', data: 1 });
        await received;
        expect(fine.events.map((event) => event.type)).toEqual(['app/note']);
      } finally {
        client.close();
      }
    });
  });

  describe('a corrupted stored entry (Redis)', () => {
    let hub: TestHub;
    it.beforeAll(async ({ admin: redis, redisStore: store, redisHub }) => {
      hub = redisHub;
      await store.commit({ sessionId: 'ok', expectedSeq: 0, events: [{ type: 'app/note', data: 1 }] });
      await redis.xadd(store.keys('corrupt').log, '0-1', 'e', Buffer.from([0xc1, 0xff]), 't', '1');
      await redis.set(store.keys('corrupt').epoch, 'epoch-of-the-corrupted-log'); // reads never create one
      // Bodies that decode, but whose text is not UTF-8: msgpackr alone would hand out replaced characters.
      const type = [0xa8, ...Buffer.from('app/note')];
      const lone = Buffer.from([0x92, ...type, 0xd9, 100, 0xed, 0xa0, 0x80, ...Buffer.alloc(97, 0x61)]);
      const cut = Buffer.from([0x92, ...type, 0xa3, 0xe4, 0x41, 0x41]);
      for (const [sessionId, body] of [
        ['lone-surrogate', lone],
        ['bad-continuation', cut],
      ] as const) {
        await redis.xadd(store.keys(sessionId).log, '0-1', 'e', body, 't', '1');
        await redis.set(store.keys(sessionId).epoch, `epoch-of-${sessionId}`);
      }
    });

    it('the SDK takes DATA_CORRUPTED as final: one error, the subscription closed, no retry loop', async () => {
      const client = new HubClient({ url: hub.wsUrl });
      try {
        const { error, closed } = await firstError(client, 'corrupt');
        expect(error.code).toBe('DATA_CORRUPTED');
        expect(closed).toBe(true);
      } finally {
        client.close();
      }
    });

    it('text that is not UTF-8 is DATA_CORRUPTED too, never delivered with replacement characters', async () => {
      const client = new HubClient({ url: hub.wsUrl });
      try {
        for (const sessionId of ['lone-surrogate', 'bad-continuation']) {
          const { error, closed } = await firstError(client, sessionId);
          expect(error.code).toBe('DATA_CORRUPTED');
          expect(error.message).toContain(sessionId);
          expect(closed).toBe(true);
        }
      } finally {
        client.close();
      }
    });

    it('an HTTP page over it answers 500 DATA_CORRUPTED, not INTERNAL; other sessions are served', async () => {
      const response = await fetch(`${hub.url}/v1/sessions/corrupt/events?from=0`);
      expect(response.status).toBe(500);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('DATA_CORRUPTED');
      expect((await fetch(`${hub.url}/v1/sessions/ok/events?from=0`)).status).toBe(200);
    });
  });
});
