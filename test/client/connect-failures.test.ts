import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, vi } from 'vitest';
import { HubClient, type HubClientError, type StateChange } from '../../client/index.ts';
import { freePort } from '../helpers/free-port.ts';
import { it, type MemoryHubClientFixture } from '../helpers/fixtures.ts';

const fastRetry = { initialDelayMs: 20, maxDelayMs: 50 };

/** The first `count` errors a client emits (it keeps retrying in between). */
function errors(client: HubClient, count: number): Promise<HubClientError[]> {
  const seen: HubClientError[] = [];
  return new Promise((resolve) => {
    client.on('error', (error) => {
      seen.push(error);
      if (seen.length === count) resolve(seen);
    });
  });
}

/** An HTTP server that answers every WebSocket upgrade with `status` (e.g. a proxy or a gateway refusing it). */
async function upgradeRefuser(status: number): Promise<{ server: Server; url: string }> {
  const server = createServer((_, response) => response.writeHead(status).end());
  server.on('upgrade', (_, socket) => {
    socket.end(`HTTP/1.1 ${status} Refused\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return { server, url: `ws://127.0.0.1:${address.port}/v1/ws` };
}

describe('connect failures are reported at once, with a typed code and the URL, and retried', () => {
  let hub: MemoryHubClientFixture;
  it.beforeAll(({ memoryHubClient }) => {
    hub = memoryHubClient;
  });
  let refuser401: { server: Server; url: string };
  let plainHttp: { server: Server; url: string };
  beforeAll(async () => {
    refuser401 = await upgradeRefuser(401);
    plainHttp = await upgradeRefuser(400);
  });
  afterAll(async () => {
    for (const { server } of [refuser401, plainHttp]) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  const cases: [string, () => Promise<string>, Record<string, unknown>][] = [
    [
      'a refused port',
      async () => `ws://127.0.0.1:${await freePort()}/v1/ws`,
      { kind: 'refused', causeCode: 'ECONNREFUSED' },
    ],
    [
      'a wrong path (HTTP 404 on upgrade)',
      async () => hub.node.wsUrl.replace('/v1/ws', '/nope'),
      { kind: 'http', status: 404 },
    ],
    ['HTTP 401 on upgrade', async () => refuser401.url, { kind: 'http', status: 401 }],
    ['a DNS error', async () => 'ws://session-hub.invalid/v1/ws', { kind: 'dns' }],
    ['a TLS error (wss to a plain HTTP port)', async () => plainHttp.url.replace('ws:', 'wss:'), { kind: 'tls' }],
  ];

  it.each(cases)('%s', async (_, urlOf, expected) => {
    const url = await urlOf();
    const causes: StateChange[] = [];
    const client = new HubClient({ url, reconnect: fastRetry, connectTimeoutMs: 10_000 });
    client.on('state', (_next, _previous, cause) => causes.push(cause));
    try {
      const [first, second] = await errors(client, 2);
      expect(first).toMatchObject({
        code: 'CONNECT_FAILED',
        details: { url, attempt: 1, willRetry: true, ...expected },
      });
      expect(first!.message).toContain(url);
      expect(first!.message).toMatch(/retrying in \d+ ms/);
      expect(first!.details['retryInMs']).toEqual(expect.any(Number));
      // It kept retrying: the next attempt failed the same way.
      expect(second).toMatchObject({ code: 'CONNECT_FAILED', details: { url, attempt: 2, ...expected } });
      expect(client.state).not.toBe('closed');
      // The state change says why (the cause only) and, apart, when and where the next attempt goes.
      const disconnected = causes.find((cause) => cause.code === 'CONNECT_FAILED');
      expect(disconnected).toMatchObject({ retryInMs: expect.any(Number), retryUrl: url });
      expect(disconnected!.reason).not.toMatch(/retrying/);
    } finally {
      client.close();
    }
  });

  it('a disconnected change names the next URL of the list and the same delay as the CONNECT_FAILED error', async () => {
    const urls = [`ws://127.0.0.1:${await freePort()}/v1/ws`, `ws://127.0.0.1:${await freePort()}/v1/ws`];
    const changes: StateChange[] = [];
    const client = new HubClient({ url: urls, reconnect: fastRetry, connectTimeoutMs: 10_000 });
    client.on('state', (_next, _previous, change) => changes.push(change));
    try {
      const [first, second] = await errors(client, 2);
      const disconnected = changes.filter((change) => change.state === 'disconnected');
      // Each failed attempt moves on to the other URL; the change says where and when, like the error's details.
      expect(disconnected[0]).toMatchObject({ retryUrl: urls[1], retryInMs: first!.details['retryInMs'] });
      expect(first!.details['url']).toBe(urls[0]);
      expect(second!.details['url']).toBe(urls[1]);
    } finally {
      client.close();
    }
  });

  it('a server that accepts but never answers: CONNECT_FAILED (timeout) after connectTimeoutMs, then a retry', async () => {
    const sockets = new Set<Socket>();
    const silent = createTcpServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `ws://127.0.0.1:${(silent.address() as { port: number }).port}/v1/ws`;
    const client = new HubClient({ url, reconnect: fastRetry, connectTimeoutMs: 200 });
    try {
      const [first, second] = await errors(client, 2);
      expect(first).toMatchObject({ code: 'CONNECT_FAILED', details: { url, kind: 'timeout', attempt: 1 } });
      expect(first!.message).toMatch(/no welcome from the hub within 200 ms/);
      expect(second).toMatchObject({ code: 'CONNECT_FAILED', details: { kind: 'timeout', attempt: 2 } });
    } finally {
      client.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('with no error listener, failed attempts go to the console at attempts 1, 2, 4, … only', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const client = new HubClient({ url: `ws://127.0.0.1:${await freePort()}/v1/ws`, reconnect: fastRetry });
    try {
      let failed = 0;
      await new Promise<void>((resolve) =>
        client.on('state', (_next, _previous, change) => {
          if (change.code === 'CONNECT_FAILED' && ++failed === 5) resolve();
        }),
      );
      const attempts = warn.mock.calls.map(([, error]) => (error as HubClientError).details['attempt']);
      expect(attempts).toEqual([1, 2, 4]);
    } finally {
      client.close();
      warn.mockRestore();
    }
  });

  it('an append on a client that never connected rejects with NOT_SENT (nothing written), not TIMEOUT', async () => {
    const client = new HubClient({ url: `ws://127.0.0.1:${await freePort()}/v1/ws`, reconnect: fastRetry });
    client.on('error', () => undefined);
    try {
      const draft = { type: 'user/message', data: { role: 'user', content: 'hi' } } as const;
      const error = await client.append('never/sent', draft, { timeoutMs: 300 }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'NOT_SENT', details: { sent: false, timeoutMs: 300 } });
      expect((error as Error).message).toMatch(/nothing was written/);
      expect((error as Error).message).not.toMatch(/may still commit/);
      const pending = client.append('never/sent', draft);
      client.close();
      await expect(pending).rejects.toMatchObject({ code: 'CLOSED', details: { sent: false } });
    } finally {
      client.close();
    }
  });

  it('state changes carry a code and a reason', async () => {
    const client = new HubClient({ url: hub.node.wsUrl });
    const seen: [string, string, string][] = [];
    client.on('state', (next, previous, cause) => seen.push([previous, next, cause.code]));
    await new Promise<void>((resolve) => client.once('state', () => resolve()));
    expect(client.stateChange).toEqual({
      state: 'connected',
      previous: 'connecting',
      code: 'CONNECTED',
      reason: `welcomed by ${hub.node.wsUrl}`,
    });
    client.close();
    expect(seen).toEqual([
      ['connecting', 'connected', 'CONNECTED'],
      ['connected', 'closed', 'CLIENT_CLOSED'],
    ]);
  });
});
