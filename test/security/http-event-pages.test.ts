import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { test as it } from '../helpers/fixtures.ts';
import { rawRequest, serve, type Served } from './serve-process.ts';

const MiB = 1024 * 1024;
const pageBytes = 16 * MiB;
const eventCount = 24;
const big = (index: number) => ({
  type: 'user/message',
  data: { role: 'user', content: `${index}:`.padEnd(MiB - 200, 'x') },
});

interface Page {
  epoch: string;
  headSeq: number;
  next: number;
  events: { seq: number }[];
}

/** A client that asks for a page, reads the status line and then stops reading (its socket is paused). */
function stalledReader(url: string): Promise<{ socket: Socket; received: () => number; closed: Promise<void> }> {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    });
    let received = 0;
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      const first = received === 0;
      received += chunk.byteLength;
      if (!first) return;
      expect(chunk.toString('latin1')).toMatch(/^HTTP\/1\.1 200 /);
      socket.pause();
      resolve({ socket, received: () => received, closed });
    });
    socket.once('close', () => reject(new Error('closed before the status line')));
  });
}

// Hole 4 of issue 11: one `GET …/events?limit=1000` of large events answered 24 MiB, written at once whether the
// client read it or not (a few clients that never read took a node from 262 MiB to 5.9 GB).
describe.each(['memory', 'redis'] as const)('HTTP event pages, %s engine: bounded, paced, few at once', (engine) => {
  let hub: Served;
  let engineArgs: readonly string[] = [];
  if (engine === 'redis') {
    it.beforeAll(({ redis }) => {
      engineArgs = ['--redis', redis.url];
    });
  }
  beforeAll(async () => {
    hub = await serve([
      ...engineArgs,
      `--max-frame-bytes=${pageBytes}`,
      `--max-event-bytes=${MiB}`,
      '--max-concurrent-page-reads=1',
      '--stall-timeout-ms=5000',
    ]);
    for (const half of [0, 1]) {
      const events = Array.from({ length: eventCount / 2 }, (_, index) => big(half * (eventCount / 2) + index));
      const reply = await rawRequest(`${hub.url}/v1/sessions/pages/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ events }),
      });
      expect(reply.status).toBe(201);
    }
  }, 60_000);
  afterAll(async () => {
    await hub?.stop();
  });

  it('a page holds about max-frame-bytes of events (at least one); the pages together hold the log once', async () => {
    const seqs: number[] = [];
    let from = 0;
    let pages = 0;
    while (from < eventCount) {
      const reply = await rawRequest(`${hub.url}/v1/sessions/pages/events?from=${from}&limit=1000`);
      expect(reply.status).toBe(200);
      expect(Buffer.byteLength(reply.body)).toBeLessThanOrEqual(pageBytes + 4096);
      const page = JSON.parse(reply.body) as Page;
      expect(page.events.length).toBeGreaterThan(0);
      expect(page.next).toBe(page.events.at(-1)!.seq + 1);
      expect(page.headSeq).toBe(eventCount - 1);
      seqs.push(...page.events.map((event) => event.seq));
      from = page.next;
      pages++;
    }
    expect(pages).toBeGreaterThan(1);
    expect(seqs).toEqual(Array.from({ length: eventCount }, (_, seq) => seq));
    const end = JSON.parse((await rawRequest(`${hub.url}/v1/sessions/pages/events?from=${eventCount}`)).body) as Page;
    expect(end).toMatchObject({ events: [], next: eventCount, headSeq: eventCount - 1 });
  });

  it('a reader that stops reading holds its page slot (others get 429) until it is cut; then pages flow again', async () => {
    const stalled = await stalledReader(`${hub.url}/v1/sessions/pages/events?limit=1000`);
    const refused = await rawRequest(`${hub.url}/v1/sessions/pages/events?limit=1`);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({
      error: { code: 'RATE_LIMITED', details: { scope: 'page-reads' } },
    });
    expect(refused.headers['retry-after']).toBe('1');
    // The hub cuts the reader after --stall-timeout-ms without progress, and its slot is free again.
    let after = refused;
    while (after.status === 429) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await rawRequest(`${hub.url}/v1/sessions/pages/events?limit=1`);
    }
    expect(after.status).toBe(200);
    stalled.socket.resume(); // now it sees what it was sent before the cut, and the cut
    await stalled.closed;
    expect(stalled.received()).toBeLessThan(pageBytes);
    expect((JSON.parse(after.body) as Page).events.map((event) => event.seq)).toEqual([0]);
  });
});
