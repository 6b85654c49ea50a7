import { describe, expect, vi } from 'vitest';
import { CloseCode } from '../../shared/protocol.ts';
import type { HubMetrics } from '../../server/metrics.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { range, RawHubClient } from '../helpers/raw-hub-client.ts';
import { test } from '../helpers/fixtures.ts';

const KiB = 1024;
const eventsPerAppend = 16;
const blob = (n: number) => ({ type: 'test/blob', data: { n, pad: 'x'.repeat(4 * KiB) } });

async function counterValue(counter: HubMetrics['closes'], labels: Record<string, string> = {}): Promise<number> {
  const { values } = await counter.get();
  return values
    .filter((value) =>
      Object.entries(labels).every(([key, label]) => (value.labels as Record<string, unknown>)[key] === label),
    )
    .reduce((sum, value) => sum + value.value, 0);
}

const it = test.extend('keyPrefix', { scope: 'file' }, 'slow:');

describe('slow consumers', () => {
  async function appendBlobs(writer: RawHubClient, sessionId: string, from: number, count: number): Promise<void> {
    for (let first = from; first < from + count; first += eventsPerAppend) {
      const events = range(first, first + eventsPerAppend - 1).map(blob);
      expect(await writer.request({ type: 'append', sessionId, events })).toMatchObject({ type: 'ack' });
    }
  }

  it('a stalled subscriber does not slow the fast ones, the buffer stays bounded, and it ends with the exact log', async ({
    redisStore: store,
  }) => {
    const maxBufferedBytes = 256 * KiB;
    const hub: TestHub = await startHub({
      store,
      limits: { maxBufferedBytes, stallTimeoutMs: 600_000, catchUpPageSize: eventsPerAppend },
    });
    const sessionId = 'slow/one';
    const total = 2400; // ~10 MB: more than the kernel's socket buffers hold for the stalled reader
    const [writer, slow, ...fast] = await Promise.all(range(0, 3).map(() => RawHubClient.connect(hub.wsUrl)));
    for (const client of [slow!, ...fast]) {
      await client.request({ type: 'subscribe', sessionId });
      await client.waitFor((message) => message.type === 'live');
    }
    slow!.ws.pause(); // stop reading: the TCP socket is no longer drained

    await appendBlobs(writer!, sessionId, 0, total);
    for (const client of fast) {
      await client.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === total - 1), {
        timeoutMs: 60_000,
      });
      expect(client.seqs(sessionId)).toEqual(range(0, total - 1));
    }
    const frameBytes = eventsPerAppend * 5 * KiB;
    expect(await counterValue(hub.hub.metrics.slowConsumerPauses)).toBeGreaterThan(0);
    expect(hub.hub.metrics.hot.outboundBufferedPeak).toBeLessThanOrEqual(maxBufferedBytes + frameBytes);
    expect(slow!.seqs(sessionId).length).toBeLessThan(total);

    slow!.ws.resume();
    await slow!.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === total - 1), {
      timeoutMs: 60_000,
    });
    const stored = await store.read(sessionId, 0, total + 1);
    expect(slow!.seqs(sessionId)).toEqual(range(0, total - 1));
    expect(slow!.events(sessionId)).toEqual(stored);

    await appendBlobs(writer!, sessionId, total, eventsPerAppend); // back to live: new events still arrive
    await slow!.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === total + 15));
    expect(slow!.seqs(sessionId)).toEqual(range(0, total + 15));
    expect(hub.hub.metrics.hot.outboundBufferedPeak).toBeLessThanOrEqual(maxBufferedBytes + frameBytes);
    await Promise.all([writer!, slow!, ...fast].map((client) => client.close()));
    await hub.close();
  });

  it('a client that stops reading altogether is closed with SLOW_CONSUMER; the others keep being served', async ({
    redisStore: store,
  }) => {
    const hub: TestHub = await startHub({
      store,
      limits: { maxBufferedBytes: 64 * KiB, stallTimeoutMs: 300, catchUpPageSize: eventsPerAppend },
    });
    const sessionId = 'slow/stalled';
    const [writer, stalled, fast] = await Promise.all(range(0, 2).map(() => RawHubClient.connect(hub.wsUrl)));
    for (const client of [stalled!, fast!]) await client.request({ type: 'subscribe', sessionId });
    stalled!.ws.pause();

    let written = 0;
    const closes = () => counterValue(hub.hub.metrics.closes, { code: String(CloseCode.SLOW_CONSUMER) });
    while ((await closes()) === 0) {
      expect(written).toBeLessThan(20_000); // ~80 MB: far beyond any socket buffer
      await appendBlobs(writer!, sessionId, written, eventsPerAppend);
      written += eventsPerAppend;
    }
    stalled!.ws.resume(); // read what was queued, up to the close frame
    expect((await stalled!.closed).code).toBe(CloseCode.SLOW_CONSUMER);

    await appendBlobs(writer!, sessionId, written, eventsPerAppend);
    written += eventsPerAppend;
    await fast!.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === written - 1), {
      timeoutMs: 60_000,
    });
    expect(fast!.seqs(sessionId)).toEqual(range(0, written - 1));
    await vi.waitFor(() => expect(hub.hub.connectionCount).toBe(2), { timeout: 15_000 });
    await Promise.all([writer!.close(), fast!.close()]);
    await hub.close();
  });

  // Issue 26, item 2: a reader that never drains but stays under `maxBufferedBytes` was never closed (it held its
  // queue and the kernel's socket buffers for as long as it liked).
  it('a client that stops reading below the outbound bound is closed with SLOW_CONSUMER all the same', async () => {
    const memory = new MemoryStore();
    const sessionId = 'slow/below-bound';
    const perEvent = 8 * KiB;
    for (let first = 0; first < 1600; first += 100) {
      const events = range(first, first + 99).map((n) => ({
        type: 'test/blob',
        data: { n, pad: 'x'.repeat(perEvent) },
      }));
      await memory.commit({ sessionId, expectedSeq: first, events }); // ~13 MB: more than the kernel's buffers hold
    }
    const maxBufferedBytes = 256 * 1024 * KiB; // never reached: the queue stays far below it
    const hub: TestHub = await startHub({ store: memory, limits: { maxBufferedBytes, stallTimeoutMs: 300 } });
    const [stalled, other] = await Promise.all(range(0, 1).map(() => RawHubClient.connect(hub.wsUrl)));
    stalled!.ws.pause();
    stalled!.send({ type: 'subscribe', id: 1, sessionId });
    const closes = () => counterValue(hub.hub.metrics.closes, { code: String(CloseCode.SLOW_CONSUMER) });
    await vi.waitFor(async () => expect(await closes()).toBe(1), { timeout: 30_000, interval: 50 });
    expect(hub.hub.metrics.hot.outboundBufferedPeak).toBeLessThan(maxBufferedBytes);
    expect(await counterValue(hub.hub.metrics.slowConsumerPauses)).toBe(0);
    stalled!.ws.resume(); // read what was queued, up to the close frame
    expect((await stalled!.closed).code).toBe(CloseCode.SLOW_CONSUMER);

    await other!.request({ type: 'subscribe', sessionId, fromSeq: 1590 });
    await other!.waitFor((m) => m.type === 'live');
    expect(other!.seqs(sessionId)).toEqual(range(1590, 1599));
    await other!.close();
    await hub.close();
    await memory.close();
  });

  it('one client that stops reading while catching up on many sessions queues one page, not one per session', async () => {
    const memory = new MemoryStore();
    const sessions = 40; // ~16 MB in all: more than the kernel's socket buffers hold for the stalled reader
    const perSession = 200;
    for (let index = 0; index < sessions; index++) {
      const events = range(0, perSession - 1).map((n) => ({
        type: 'test/blob',
        data: { n, pad: 'x'.repeat(2 * KiB) },
      }));
      await memory.commit({ sessionId: `many/${index}`, expectedSeq: 0, events });
    }
    const maxBufferedBytes = 64 * KiB;
    const hub: TestHub = await startHub({ store: memory, limits: { maxBufferedBytes, stallTimeoutMs: 600_000 } });
    const client = await RawHubClient.connect(hub.wsUrl);
    client.ws.pause();
    for (let index = 0; index < sessions; index++)
      client.send({ type: 'subscribe', id: 100 + index, sessionId: `many/${index}` });
    // Behind after the first page; then every subscription has read its first page (and must have held it).
    await vi.waitFor(() => expect(hub.hub.metrics.hot.outboundBufferedPeak).toBeGreaterThan(maxBufferedBytes), {
      timeout: 10_000,
    });
    await vi.waitFor(
      async () => expect(await counterValue(hub.hub.metrics.catchUpReads)).toBeGreaterThanOrEqual(sessions),
      { timeout: 10_000 },
    );
    const pageBytes = perSession * (2 * KiB + 64);
    expect(hub.hub.metrics.hot.outboundBufferedPeak).toBeLessThanOrEqual(maxBufferedBytes + 2 * pageBytes);
    client.ws.resume();
    for (let index = 0; index < sessions; index++) {
      await client.waitFor((m) => m.type === 'live' && m.sessionId === `many/${index}`, { timeoutMs: 30_000 });
      expect(client.seqs(`many/${index}`)).toEqual(range(0, perSession - 1));
    }
    await client.close();
    await hub.close();
    await memory.close();
  });
});
