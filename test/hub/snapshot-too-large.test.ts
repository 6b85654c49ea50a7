import { afterAll, beforeAll, describe, expect, vi } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { deriveMessages } from '../../shared/index.ts';
import type { ServerMessage } from '../../shared/protocol.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { range, RawHubClient } from '../helpers/raw-hub-client.ts';
import { test as it } from '../helpers/fixtures.ts';
import { untilSeq } from '../client/support.ts';

const WAIT = { timeout: 10_000, interval: 10 };
const MAX_FRAME_BYTES = 16 * 1024;
const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });

/** A raw client that also records the payload size of every frame it receives. */
async function sizedClient(url: string, format: 'binary' | 'text') {
  const client = await RawHubClient.connect(url, { format });
  const sizes: number[] = [];
  client.ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
    sizes.push(Array.isArray(data) ? Buffer.concat(data).byteLength : data.byteLength);
  });
  return { client, sizes };
}

describe('a snapshot above the frame limit is never sent (#28)', () => {
  const store = new MemoryStore();
  let hub: TestHub;

  beforeAll(async () => {
    hub = await startHub({
      store,
      limits: { maxFrameBytes: MAX_FRAME_BYTES, maxEventBytes: 4096 },
      snapshots: { everyEvents: 10, atTurnEnd: false },
    });
    const writer = await RawHubClient.connect(hub.wsUrl);
    // 'big': 40 messages of ~1 KB each, a snapshot of ~40 KB; 'small': 12 short ones, a snapshot far below the limit.
    for (let index = 0; index < 40; index++) {
      await writer.request({ type: 'append', sessionId: 'big', events: [user(`${index} ${'x'.repeat(1000)}`)] });
    }
    for (let index = 0; index < 12; index++) {
      await writer.request({ type: 'append', sessionId: 'small', events: [user(`short ${index}`)] });
    }
    await writer.close();
    await vi.waitFor(async () => {
      const big = await store.snapshots.get('big');
      const small = await store.snapshots.get('small');
      expect(big.status === 'found' && big.snapshot.seq >= 39).toBe(true);
      expect(small.status === 'found' && small.snapshot.seq >= 9).toBe(true);
    }, WAIT);
  });

  afterAll(async () => {
    await hub.close();
    await store.close();
  });

  for (const format of ['binary', 'text'] as const) {
    it(`${format}: declined TOO_LARGE at seq -1, then the whole log from seq 0 in frames under the limit`, async () => {
      const { client, sizes } = await sizedClient(hub.wsUrl, format);
      try {
        const from = client.messages.length;
        const subscribed = await client.request({ type: 'subscribe', sessionId: 'big', snapshot: true });
        expect(subscribed).toMatchObject({ type: 'subscribed', headSeq: 39 });
        await client.waitFor((message) => message.type === 'live' && message.sessionId === 'big', { from });
        const ofSession = client.messages
          .slice(from)
          .filter((message): message is ServerMessage & { sessionId: string } => 'sessionId' in message);
        const snapshot = ofSession[0];
        expect(snapshot).toMatchObject({ type: 'snapshot', seq: -1, declined: 'TOO_LARGE' });
        if (snapshot?.type !== 'snapshot' || snapshot.state === null) throw new Error('unreachable');
        expect(snapshot.state.length).toBe(0);
        expect(client.seqs('big')).toEqual(range(0, 39));
        expect(client.events('big')).toEqual(await store.read('big', 0, 100));
        expect(Math.max(...sizes)).toBeLessThanOrEqual(MAX_FRAME_BYTES);
        expect(client.invalidFrames).toEqual([]);
      } finally {
        await client.close();
      }
    });
  }

  it('a snapshot under the limit is sent as it is (not declined), and the declines are counted', async () => {
    const client = await RawHubClient.connect(hub.wsUrl);
    try {
      const from = client.messages.length;
      await client.request({ type: 'subscribe', sessionId: 'small', snapshot: true });
      const snapshot = client.messages.slice(from).find((message) => message.type === 'snapshot');
      expect(snapshot).toMatchObject({ type: 'snapshot', seq: 9 });
      expect(snapshot).not.toHaveProperty('declined');
      const reads = await hub.hub.metrics.snapshotReads.get();
      const tooLarge = reads.values.find((value) => value.labels['result'] === 'too_large')?.value ?? 0;
      expect(tooLarge).toBeGreaterThanOrEqual(2);
    } finally {
      await client.close();
    }
  });

  it('the SDK falls back to a catch-up from seq 0: messages exact from the first emit and after live appends', async () => {
    const client = new HubClient({ url: hub.wsUrl });
    const writer = new HubClient({ url: hub.wsUrl });
    try {
      const watcher = client.subscribe('big', { from: 'snapshot' });
      await untilSeq(watcher, 39);
      expect(watcher.snapshotSeq).toBe(-1);
      expect(watcher.events.map((event) => event.seq)).toEqual(range(0, 39));
      expect(watcher.messages).toEqual(deriveMessages(await store.read('big', 0, 100)));
      await writer.append('big', [user('after the join')]);
      await untilSeq(watcher, 40);
      const log = await store.read('big', 0, 100);
      expect(log).toHaveLength(41);
      expect(watcher.messages).toEqual(deriveMessages(log));
      expect(watcher.messagesComplete).toBe(true);
    } finally {
      client.close();
      writer.close();
    }
  });
});
