import { connect, type Socket } from 'node:net';
import { describe, expect } from 'vitest';
import { CloseCode } from '../../shared/protocol.ts';
import type { HubAuth, HubPrincipal } from '../../server/auth/auth-seam.ts';
import { test, type HubOptions } from '../helpers/fixtures.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

/**
 * Issue 11, hole 12: what a connection may keep, against real hub nodes: a connection whose token expired is
 * closed (not kept) unless it refreshes in time; an optional maximum token lifetime; a node-wide cap on
 * subscriptions; slow HTTP clients (slowloris) cannot hold sockets; a subscriber whose catch-up hits a corrupted
 * stored entry gets a typed error.
 */

/** Tokens are `"<ms>"` (valid for that long from now) or `"forever"`; a principal is authorized until it expires. */
const ttlAuth: HubAuth = {
  authenticate: (token): HubPrincipal => {
    if (token === undefined || token === 'forever') return { subject: 'ttl' };
    return { subject: 'ttl', expiresAt: Date.now() + Number(token) };
  },
  authorize: (principal) => principal.expiresAt === undefined || Date.now() < principal.expiresAt,
};

const note = { type: 'x/y', data: 1 };

/** The fixtures with a memory hub on `hubConfig` (each describe block its own). */
const withHub = (hubConfig: HubOptions) => test.extend('hubConfig', { scope: 'file' }, hubConfig);
const expiredTokens = withHub({ auth: ttlAuth, limits: { tokenRefreshGraceMs: 1000 } });
const tokenLifetime = withHub({ auth: ttlAuth, limits: { maxTokenLifetimeMs: 300, tokenRefreshGraceMs: 60_000 } });
const subscriptionCap = withHub({ limits: { maxSubscriptionsPerNode: 3 } });
const slowClients = withHub({ limits: { headersTimeoutMs: 300, requestTimeoutMs: 600 } });
const corruptEntry = test.extend('keyPrefix', { scope: 'file' }, 'corrupt:');

describe('expired tokens', () => {
  const it = expiredTokens;

  it('a connection whose token expired and was not refreshed is closed with 1008', async ({ memoryHub: fixture }) => {
    const client = await RawHubClient.connect(fixture.hub.wsUrl, { token: '300' });
    expect(await client.request({ type: 'subscribe', sessionId: 'exp/a' })).toMatchObject({ type: 'subscribed' });
    expect(await client.waitFor((m) => m.type === 'error' && m.sessionId === 'exp/a')).toMatchObject({
      code: 'TOKEN_EXPIRED',
    });
    expect((await client.closed).code).toBe(CloseCode.POLICY_VIOLATION);
  });

  it('a connection that refreshes after the expiry, within the grace, stays', async ({ memoryHub: fixture }) => {
    const refreshing = await RawHubClient.connect(fixture.hub.wsUrl, { token: '300' });
    const lapsing = await RawHubClient.connect(fixture.hub.wsUrl, { token: '300' }); // expires no earlier
    await refreshing.request({ type: 'subscribe', sessionId: 'exp/b' });
    await refreshing.waitFor((m) => m.type === 'error' && m.code === 'TOKEN_EXPIRED');
    expect(await refreshing.request({ type: 'auth', token: 'forever' })).toMatchObject({ type: 'authenticated' });
    // The lapsing connection's grace started no earlier than the refreshing one's: once it is closed, the
    // refreshing one would have been closed too, had its refresh not counted.
    expect((await lapsing.closed).code).toBe(CloseCode.POLICY_VIOLATION);
    expect(await refreshing.request({ type: 'ping' })).toMatchObject({ type: 'pong' });
    await refreshing.close();
  });
});

describe('maximum token lifetime', () => {
  const it = tokenLifetime;

  it('ends the subscriptions of a token without expiry once the lifetime is over, and refuses its requests', async ({
    memoryHub: fixture,
  }) => {
    const client = await RawHubClient.connect(fixture.hub.wsUrl, { token: 'forever' });
    await client.request({ type: 'subscribe', sessionId: 'life/a' });
    expect(await client.waitFor((m) => m.type === 'error' && m.sessionId === 'life/a')).toMatchObject({
      code: 'TOKEN_EXPIRED',
    });
    expect(await client.request({ type: 'append', sessionId: 'life/a', events: [note] })).toMatchObject({
      type: 'error',
    });
    expect(await fixture.store.head('life/a')).toMatchObject({ headSeq: -1 });
    expect(await client.request({ type: 'auth', token: 'forever' })).toMatchObject({ type: 'authenticated' });
    expect(await client.request({ type: 'append', sessionId: 'life/a', events: [note] })).toMatchObject({
      type: 'ack',
    });
    await client.close();
  });
});

describe('node-wide subscription cap', () => {
  const it = subscriptionCap;

  it('refuses subscriptions beyond the node cap, whichever connection holds them, and frees them on close', async ({
    memoryHub: fixture,
  }) => {
    const [a, b] = await Promise.all([
      RawHubClient.connect(fixture.hub.wsUrl),
      RawHubClient.connect(fixture.hub.wsUrl),
    ]);
    for (const sessionId of ['cap/1', 'cap/2']) await a!.request({ type: 'subscribe', sessionId });
    expect(await b!.request({ type: 'subscribe', sessionId: 'cap/3' })).toMatchObject({ type: 'subscribed' });
    expect(await b!.request({ type: 'subscribe', sessionId: 'cap/4' })).toMatchObject({
      code: 'TOO_MANY_SUBSCRIPTIONS',
      details: { limit: 3, scope: 'node' },
    });
    await a!.close();
    const c = await RawHubClient.connect(fixture.hub.wsUrl);
    expect(await b!.request({ type: 'subscribe', sessionId: 'cap/4' })).toMatchObject({ type: 'subscribed' });
    expect(await c.request({ type: 'subscribe', sessionId: 'cap/5' })).toMatchObject({ type: 'subscribed' });
    await Promise.all([b!.close(), c.close()]);
  });
});

describe('slow HTTP clients (slowloris)', () => {
  const it = slowClients;

  /** Open a TCP socket to the hub, write `text`, and resolve with what the hub answered once it closed the socket. */
  function holdOpen(port: number, text: string): Promise<string> {
    const socket: Socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('error', () => undefined);
    socket.write(text);
    return new Promise((resolve) => socket.once('close', () => resolve(received)));
  }

  it('closes a socket whose headers never end', async ({ memoryHub: fixture }) => {
    expect(await holdOpen(fixture.hub.port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1\r\n')).toMatch(
      /^HTTP\/1\.1 408/,
    );
  });

  it('closes a socket whose body never ends', async ({ memoryHub: fixture }) => {
    const head = 'POST /v1/sessions/slow/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n';
    expect(await holdOpen(fixture.hub.port, `${head}Content-Length: 1000\r\n\r\n[{"type":`)).toMatch(/^HTTP\/1\.1 408/);
    expect(await fixture.store.head('slow')).toMatchObject({ headSeq: -1 });
  });

  it('still serves a prompt request', async ({ memoryHub: fixture }) => {
    expect((await fetch(`${fixture.hub.url}/healthz`)).status).toBe(200);
  });
});

describe('a corrupted stored entry during catch-up', () => {
  const it = corruptEntry;

  it('ends the subscription with DATA_CORRUPTED; the connection and other sessions stay served', async ({
    admin: redis,
    redisStore: store,
    redisHub: hub,
  }) => {
    await store.commit({ sessionId: 'bad', expectedSeq: 0, events: [note] });
    await redis.xadd(store.keys('bad').log, '1-1', 'e', Buffer.from([0xc1, 0xff]), 't', '1');
    const client = await RawHubClient.connect(hub.wsUrl);
    expect(await client.request({ type: 'subscribe', sessionId: 'bad' })).toMatchObject({ type: 'subscribed' });
    expect(await client.waitFor((m) => m.type === 'error' && m.sessionId === 'bad')).toMatchObject({
      code: 'DATA_CORRUPTED',
      details: { seq: 0 },
    });
    expect(await client.request({ type: 'unsubscribe', sessionId: 'bad' })).toMatchObject({ code: 'NOT_SUBSCRIBED' });
    await client.request({ type: 'subscribe', sessionId: 'good' });
    expect(await client.request({ type: 'append', sessionId: 'good', events: [note] })).toMatchObject({ type: 'ack' });
    await client.waitFor((m) => m.type === 'events' && m.sessionId === 'good');
    await client.close();
  });
});
