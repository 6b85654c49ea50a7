import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreUnavailableError, type ValidatedDraft } from '../../server/store/event-store.ts';
import { isMasterAddress, RedisProtocolError } from '../../server/store/redis/redis-guard.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { TcpProxy } from '../client/tcp-proxy.ts';
import { RedisServer } from '../helpers/redis-server.ts';

// Issue 26 item 3: bytes from Redis (or from a proxy or a compromised path in front of it) may fail a request or a
// connection, never the process. ioredis 5.11 threw a TypeError out of its socket's data listener on an unsolicited
// `$-1` (an uncaught exception: the suite's process guard fails the test), and a sentinel naming a garbage master
// ended the connection for good.

const WAIT = { timeout: 15_000, interval: 50 };
const drafts = (count: number): ValidatedDraft[] =>
  Array.from({ length: count }, (_, index) => ({ type: 'test/event', data: { index } }));

/** A TCP server that answers every chunk it receives with `reply` (a fake sentinel or a fake Redis). */
async function answering(reply: string): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => socket.write(reply));
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening');
  return { server, port: address.port, sockets };
}

async function closeServer(fake: { server: Server; sockets: Set<Socket> }): Promise<void> {
  for (const socket of fake.sockets) socket.destroy();
  await new Promise<void>((resolve) => fake.server.close(() => resolve()));
}

describe('replies nobody asked for, on the store connections', () => {
  let redis: RedisServer | undefined;
  let proxy: TcpProxy | undefined;
  let store: RedisStore | undefined;
  afterEach(async () => {
    await store?.close();
    await proxy?.close();
    await redis?.stop();
  });

  for (const injected of ['$-1\r\n', '*-1\r\n', '*0\r\n', ':1\r\n', '*1\r\n$7\r\nmessage\r\n']) {
    it(`an unsolicited ${JSON.stringify(injected)} fails the connection, not the process; the store recovers`, async () => {
      redis = await RedisServer.start();
      proxy = await TcpProxy.start(redis.port);
      const reported: Error[] = [];
      store = await RedisStore.open({
        url: `redis://127.0.0.1:${proxy.port}`,
        onError: (error) => reported.push(error),
      });
      store.watch('s', { onCommitted: () => undefined, onResync: () => undefined });
      await store.head('s'); // both connections up, the subscriber in subscriber mode
      await store.readStoredPage('s', 0, 10); // and the catch-up socket open
      expect(proxy.injectToClients(injected)).toBeGreaterThanOrEqual(3);
      // A request may fail (the stray reply is taken for its answer, then the connection is dropped), with a typed
      // error; after that, commits and heads agree again.
      await vi.waitFor(async () => {
        const { headSeq } = await store!.head('s');
        const result = await store!.commit({ sessionId: 's', expectedSeq: headSeq + 1, events: drafts(2) });
        expect(result.status).toBe('committed');
      }, WAIT);
      for (let round = 0; round < 3; round++) {
        const { headSeq } = await store.head('s');
        const result = await store.commit({ sessionId: 's', expectedSeq: headSeq + 1, events: drafts(1) });
        expect(result).toMatchObject({ status: 'committed', events: [{ seq: headSeq + 1 }] });
      }
      const failures = reported.filter((error) => !(error instanceof StoreUnavailableError));
      expect(failures).toEqual([]);
    });
  }

  it('a dropped connection is reported as a RedisProtocolError cause, with a StoreUnavailableError', async () => {
    redis = await RedisServer.start();
    proxy = await TcpProxy.start(redis.port);
    const reported: Error[] = [];
    store = await RedisStore.open({ url: `redis://127.0.0.1:${proxy.port}`, onError: (error) => reported.push(error) });
    proxy.injectToClients('$-1\r\n');
    await vi.waitFor(() => expect(reported.length).toBeGreaterThan(0), WAIT);
    expect(reported[0]).toBeInstanceOf(StoreUnavailableError);
    expect(reported[0]!.cause).toBeInstanceOf(RedisProtocolError);
    expect(reported[0]!.cause).toMatchObject({ code: 'REDIS_PROTOCOL' });
  });
});

describe('a sentinel that answers garbage', () => {
  const garbage = {
    'a port that is not a number': '*2\r\n$3\r\nfoo\r\n$3\r\nbar\r\n',
    'a port out of range': '*2\r\n$9\r\n127.0.0.1\r\n$6\r\n999999\r\n',
    'a host that is an array': '*2\r\n*1\r\n$1\r\nx\r\n$4\r\n6379\r\n',
    'no host': '*2\r\n$-1\r\n$4\r\n6379\r\n',
    'replies nobody asked for': '$-1\r\n$-1\r\n$-1\r\n',
  };
  for (const [what, reply] of Object.entries(garbage)) {
    it(`${what}: the store does not open (STORE_UNAVAILABLE), the process lives`, async () => {
      const fake = await answering(reply);
      try {
        const reported: Error[] = [];
        const opening = RedisStore.open({
          sentinels: [`127.0.0.1:${fake.port}`],
          sentinelName: 'main',
          connectTimeoutMs: 1000,
          commandTimeoutMs: 500,
          onError: (error) => reported.push(error),
        });
        await expect(opening).rejects.toBeInstanceOf(StoreUnavailableError);
      } finally {
        await closeServer(fake);
      }
    });
  }

  it('the address check takes host names, IPv4 and IPv6 literals, and nothing else', () => {
    for (const good of [
      { host: 'redis-1.internal', port: 6379 },
      { host: '10.0.0.7', port: 1 },
      { host: 'fe80::1%eth0', port: 65535 },
    ]) {
      expect(isMasterAddress(good)).toBe(true);
    }
    for (const bad of [
      null,
      { host: 'foo', port: Number.NaN },
      { host: 'foo', port: 0 },
      { host: 'foo', port: 65536 },
      { host: '', port: 6379 },
      { host: ['x'], port: 6379 },
      { host: 'a b', port: 6379 },
      { host: 'x'.repeat(254), port: 6379 },
    ]) {
      expect(isMasterAddress(bad)).toBe(false);
    }
  });
});
