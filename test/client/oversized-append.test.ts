import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubClient } from '../../client/index.ts';
import type { HubClientState } from '../../client/index.ts';
import { encodeRequest } from '../../client/wire.ts';
import { MemoryStore } from '../../server/index.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { untilSeq } from './support.ts';

const text = (length: number) => ({ type: 'test/blob', data: { text: 'x'.repeat(length) } });

describe('an append larger than the hub takes', () => {
  let store: MemoryStore;
  let defaultHub: TestHub;
  let smallFrameHub: TestHub;
  let tinyFrameHub: TestHub;

  beforeAll(async () => {
    store = new MemoryStore();
    defaultHub = await startHub({ store });
    smallFrameHub = await startHub({ store, limits: { maxFrameBytes: 64 * 1024 } });
    tinyFrameHub = await startHub({ store, limits: { maxFrameBytes: 8 * 1024 } });
  });
  afterAll(async () => {
    await defaultHub.close();
    await smallFrameHub.close();
    await tinyFrameHub.close();
    await store.close();
  });

  it('fails at once with FRAME_TOO_LARGE above maxFrameBytes (default: the hub default): nothing is sent', async () => {
    // A timeout far below the test's: without the check, the append would be re-sent until TIMEOUT.
    const client = new HubClient({ url: defaultHub.wsUrl, requestTimeoutMs: 5_000 });
    const states: HubClientState[] = [];
    client.on('state', (next) => states.push(next));
    try {
      const subscription = client.subscribe('big/1');
      await subscription.whenLive();
      await expect(client.append('big/1', text(1024 * 1024))).rejects.toMatchObject({
        code: 'FRAME_TOO_LARGE',
        details: { limit: 1024 * 1024 },
      });
      expect(client.pendingAppends).toBe(0);
      await client.append('big/1', text(10));
      await untilSeq(subscription, 0);
      expect(states).toEqual(['connected']);
      expect(await store.read('big/1', 0, 10)).toHaveLength(1);

      const tight = new HubClient({ url: defaultHub.wsUrl, maxFrameBytes: 1000 });
      await expect(tight.append('big/1', text(2000))).rejects.toMatchObject({ code: 'FRAME_TOO_LARGE' });
      tight.close();
    } finally {
      client.close();
    }
  });

  it('sizes appends to a lower limit the hub announced in welcome: refused at once, no 1009', async () => {
    const client = new HubClient({ url: smallFrameHub.wsUrl, requestTimeoutMs: 5_000 });
    const states: HubClientState[] = [];
    client.on('state', (next) => states.push(next));
    try {
      const subscription = client.subscribe('big/2');
      await subscription.whenLive();
      expect(client.maxFrameBytes).toBe(64 * 1024);
      await expect(client.append('big/2', text(100 * 1024))).rejects.toMatchObject({
        code: 'FRAME_TOO_LARGE',
        details: { limit: 64 * 1024 },
      });
      const [committed] = await client.append('big/2', text(10));
      expect(committed?.seq).toBe(0);
      expect(states).toEqual(['connected']);
    } finally {
      client.close();
    }
  });

  it('a 1009 close (an append made before the hub announced its limit) fails the append on the wire only', async () => {
    const client = new HubClient({ url: smallFrameHub.wsUrl, requestTimeoutMs: 5_000 });
    try {
      // Made before the welcome: checked against the client's own 1 MiB only, so it reaches the hub.
      const big = client.append('big/4', text(100 * 1024));
      await expect(big).rejects.toMatchObject({ code: 'FRAME_TOO_LARGE', details: { closeCode: 1009 } });
      const subscription = client.subscribe('big/4');
      const [committed] = await client.append('big/4', text(10));
      expect(committed?.seq).toBe(0);
      await untilSeq(subscription, 0);
      expect(subscription.events).toHaveLength(1);
    } finally {
      client.close();
    }
  });

  it('an append that fits only without `after` waits for the one ahead of it: no 1009, both commit in order', async () => {
    const limit = 8 * 1024;
    const client = new HubClient({ url: tinyFrameHub.wsUrl, maxFrameBytes: limit, requestTimeoutMs: 5_000 });
    const states: HubClientState[] = [];
    client.on('state', (next) => states.push(next));
    try {
      const subscription = client.subscribe('big/3');
      await subscription.whenLive();
      // The biggest blob whose frame fits alone (measured as the SDK does); pipelined behind another append, the
      // frame would also carry that append's key as `after` (36 characters) and pass the hub's limit.
      const key = '00000000-0000-4000-8000-000000000000';
      const frameBytes = (length: number, after?: string) =>
        encodeRequest({
          type: 'append',
          id: Number.MAX_SAFE_INTEGER,
          sessionId: 'big/3',
          events: [text(length)],
          idempotencyKey: key,
          ...(after === undefined ? {} : { after }),
        }).byteLength;
      let length = limit;
      while (frameBytes(length) > limit) length--;
      expect(frameBytes(length, key)).toBeGreaterThan(limit);

      const small = client.append('big/3', text(10));
      const big = client.append('big/3', text(length), { idempotencyKey: key });
      const [[first], [second]] = await Promise.all([small, big]);
      expect([first?.seq, second?.seq]).toEqual([0, 1]);
      await untilSeq(subscription, 1);
      expect(states).toEqual(['connected']);
    } finally {
      client.close();
    }
  });
});
