import { createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HubMetrics } from '../../server/metrics.ts';
import { StoreUnavailableError, type ValidatedDraft } from '../../server/store/event-store.ts';
import { RawReadFallback } from '../../server/store/redis/redis-catch-up.ts';
import { sessionKeys } from '../../server/store/redis/redis-keys.ts';
import {
  PAGE_CONNECTION_NAME,
  PageTooLarge,
  RedisPageConnection,
} from '../../server/store/redis/redis-page-connection.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { RedisServer } from '../helpers/redis-server.ts';

// Issue 26 item 4: the raw catch-up reader buffered a reply of any size (300 MB was seen) and kept a read pending
// as long as bytes dripped in. Issue 27 §5: it can be turned off, names its socket, and counts and logs each
// fallback to ioredis.

const drafts = (count: number, size: number): ValidatedDraft[] =>
  Array.from({ length: count }, (_, index) => ({ type: 'test/event', data: { index, text: 'x'.repeat(size) } }));

/** A fake Redis: `+OK` to the socket's name, then `answer(socket)` for the page read. */
const fakeSockets = new Set<Socket>();

async function fakeRedis(answer: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => {
    fakeSockets.add(socket);
    socket.on('error', () => undefined);
    let answered = false;
    socket.on('data', () => {
      if (answered) return;
      answered = true;
      socket.write('+OK\r\n');
      answer(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening');
  return { server, port: address.port };
}

const target = (port: number) => () => ({
  host: '127.0.0.1',
  port,
  username: undefined,
  password: undefined,
  db: 0,
});
const keys = sessionKeys('sh:', 's');

describe('the raw reader bounds each read', () => {
  const servers: Server[] = [];
  const timers: ReturnType<typeof setInterval>[] = [];
  afterEach(async () => {
    for (const timer of timers.splice(0)) clearInterval(timer);
    for (const socket of fakeSockets) socket.destroy();
    fakeSockets.clear();
    for (const server of servers.splice(0)) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('a reply dripping in (a byte every 20 ms, never idle) fails the read after its total time', async () => {
    const fake = await fakeRedis((socket) => {
      socket.write('$100000\r\n');
      timers.push(setInterval(() => socket.write('x'), 20));
    });
    servers.push(fake.server);
    const pages = new RedisPageConnection(target(fake.port), {
      idleTimeoutMs: 2000,
      maxReadMs: 300,
      maxReplyBytes: 1 << 20,
    });
    try {
      const read = pages.read(keys, 's', 0, 10);
      await expect(read).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(read).rejects.toThrow(/not complete within 300 ms/);
    } finally {
      pages.close();
    }
  });

  it('a reply growing past the byte cap fails the read and closes the socket before more is buffered', async () => {
    let sent = 0;
    let closed = false;
    const chunk = Buffer.alloc(256 * 1024, 0x78);
    const fake = await fakeRedis((socket) => {
      socket.write('$300000000\r\n');
      socket.on('close', () => (closed = true));
      const pump = (): void => {
        while (!socket.destroyed && sent < 300_000_000) {
          sent += chunk.length;
          if (!socket.write(chunk)) {
            socket.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
    servers.push(fake.server);
    const cap = 4 * 1024 * 1024;
    const pages = new RedisPageConnection(target(fake.port), {
      idleTimeoutMs: 5000,
      maxReadMs: 60_000,
      maxReplyBytes: cap,
    });
    try {
      const read = pages.read(keys, 's', 0, 10);
      await expect(read).rejects.toBeInstanceOf(PageTooLarge);
      await expect.poll(() => closed, { timeout: 10_000, interval: 20 }).toBe(true);
      expect(sent).toBeLessThan(300_000_000); // the reader hung up long before the end
    } finally {
      pages.close();
    }
  });
});

describe('the raw reader on a real Redis', () => {
  let server: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    server = await RedisServer.start({ extraArgs: ['--unixsocket', `/tmp/sh-redis-${process.pid}.sock`] });
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin.disconnect();
    await server.stop();
  });

  it('a page over the byte cap is read in fewer entries: a prefix of what MULTI reads', async () => {
    const store = await RedisStore.open({ url: server.url, keyPrefix: 'big:', maxReadReplyBytes: 200_000 });
    const reference = await RedisStore.open({ url: server.url, keyPrefix: 'big:', rawReads: false });
    try {
      await store.commit({ sessionId: 's', expectedSeq: 0, events: drafts(40, 20_000) });
      const page = await store.readStoredPage('s', 0, 40);
      const full = await reference.readStoredPage('s', 0, 40);
      expect(full.bodies).toHaveLength(40);
      expect(page.bodies.length).toBeGreaterThan(0);
      expect(page.bodies.length).toBeLessThan(40);
      expect(page.epoch).toBe(full.epoch);
      expect(page.bodies.map((body) => Buffer.from(body))).toEqual(
        full.bodies.slice(0, page.bodies.length).map((body) => Buffer.from(body)),
      );
      expect(store.counters?.rawReadFallbacks).toBe(0);
    } finally {
      await Promise.all([store.close(), reference.close()]);
    }
  });

  // Issue 26 item 1: a read with a byte budget caps its raw reply near the budget, whatever the count asked for.
  it('a read bounded by bytes: cut in the node when the reply fits its cap, else dropped and cut by the script', async () => {
    const scriptRuns = async (): Promise<number> => {
      const info = await admin.info('commandstats');
      const calls = (command: string): number =>
        Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(info)?.[1] ?? 0);
      return calls('evalsha') + calls('eval'); // ioredis sends EVAL after a NOSCRIPT
    };
    const store = await RedisStore.open({ url: server.url, keyPrefix: 'budget:' });
    try {
      await store.commit({ sessionId: 's', expectedSeq: 0, events: drafts(10, 100) });
      await store.commit({ sessionId: 's', expectedSeq: 10, events: drafts(40, 20_000) });
      const before = await scriptRuns();
      // 10 small bodies (~130 bytes each): the reply fits its cap, the page is cut to 500 bytes in the node.
      const small = await store.readStoredPage('s', 0, 10, 500);
      expect(small.bodies.length).toBeGreaterThan(1);
      expect(small.bodies.length).toBeLessThan(10);
      expect(small.bodies.reduce((sum, body) => sum + body.length, 0)).toBeLessThanOrEqual(500);
      expect(small.truncated).toBe(true);
      expect(await scriptRuns()).toBe(before);
      // 40 bodies of 20 KB asked for with a 100 KB budget: the raw reply is dropped past ~105 KB, the script reads.
      const large = await store.readStoredPage('s', 10, 40, 100_000);
      expect(large.bodies.length).toBe(4);
      expect(large.truncated).toBe(true);
      expect(large.bodies.reduce((sum, body) => sum + body.length, 0)).toBeLessThanOrEqual(100_000);
      expect(store.counters?.rawReadsOverBudget).toBe(1);
      expect(await scriptRuns()).toBe(before + 1);
      const metrics = new HubMetrics('sh_');
      metrics.storeCounters = store.counters;
      expect(await metrics.registry.metrics()).toMatch(/^sh_catchup_raw_over_budget_total 1$/m);
      // The next read that fits goes raw again, on a new socket.
      expect((await store.readStoredPage('s', 14, 3, 100_000)).bodies).toHaveLength(3);
      expect(await scriptRuns()).toBe(before + 1);
      expect(store.counters?.rawReadFallbacks).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('a read bounded by bytes checks only the entries it returns: raw reader and bounded script alike', async () => {
    const raw = await RedisStore.open({ url: server.url, keyPrefix: 'cut:' });
    const script = await RedisStore.open({ url: server.url, keyPrefix: 'cut:', rawReads: false });
    try {
      const keys = raw.keys('s');
      await admin.set(keys.epoch, 'epoch-cut');
      for (let seq = 0; seq < 3; seq++)
        await admin.xadd(keys.log, `${seq}-1`, 'e', 'b'.repeat(100), 't', '1700000000000');
      await admin.xadd(keys.log, '3-1', 'e', 'c'.repeat(1000)); // no time: corrupt, and past the budget
      for (const store of [raw, script]) {
        const page = await store.readStoredPage('s', 0, 10, 350);
        expect(page.bodies.map((body) => Buffer.from(body).toString())).toEqual([
          'b'.repeat(100),
          'b'.repeat(100),
          'b'.repeat(100),
        ]);
        expect(page.truncated).toBe(true);
        await expect(store.readStoredPage('s', 0, 10)).rejects.toMatchObject({ code: 'DATA_CORRUPTED' });
        await expect(store.readStoredPage('s', 3, 10, 350)).rejects.toMatchObject({ code: 'DATA_CORRUPTED' });
      }
      expect(raw.counters?.rawReadsOverBudget).toBe(0); // the raw reader cut this page itself
    } finally {
      await Promise.all([raw.close(), script.close()]);
    }
  });

  it(`names its socket ${PAGE_CONNECTION_NAME}; with rawReads: false there is no such socket`, async () => {
    const names = async (): Promise<string> => (await admin.call('CLIENT', 'LIST')) as string;
    const off = await RedisStore.open({ url: server.url, keyPrefix: 'off:', rawReads: false });
    try {
      await off.commit({ sessionId: 's', expectedSeq: 0, events: drafts(3, 10) });
      expect((await off.readStoredPage('s', 0, 10)).bodies).toHaveLength(3);
      expect(await names()).not.toContain(`name=${PAGE_CONNECTION_NAME}`);
      expect(off.counters?.rawReadFallbacks).toBe(0); // off is not a fallback
    } finally {
      await off.close();
    }
    const on = await RedisStore.open({ url: server.url, keyPrefix: 'off:' });
    try {
      expect((await on.readStoredPage('s', 0, 10)).bodies).toHaveLength(3);
      expect(await names()).toContain(`name=${PAGE_CONNECTION_NAME}`);
    } finally {
      await on.close();
    }
  });

  it('where it cannot read (a Unix socket), every fallback is counted in the metrics and logged once', async () => {
    const template = new Redis({ path: `/tmp/sh-redis-${process.pid}.sock`, lazyConnect: true });
    const reported: Error[] = [];
    const store = await RedisStore.open({
      redis: template,
      keyPrefix: 'unix:',
      onError: (error) => reported.push(error),
    });
    try {
      await store.commit({ sessionId: 's', expectedSeq: 0, events: drafts(3, 10) });
      for (let round = 0; round < 3; round++) expect((await store.readStoredPage('s', 0, 10)).bodies).toHaveLength(3);
      expect(store.counters?.rawReadFallbacks).toBe(3);
      const fallbacks = reported.filter((error) => error instanceof RawReadFallback);
      expect(fallbacks).toHaveLength(1);
      expect(fallbacks[0]!.message).toMatch(/read through ioredis .*no plain TCP Redis/);
      const metrics = new HubMetrics('sh_');
      metrics.storeCounters = store.counters;
      expect(await metrics.registry.metrics()).toMatch(/^sh_catchup_raw_fallbacks_total 3$/m);
    } finally {
      await store.close();
      template.disconnect();
    }
  });
});
