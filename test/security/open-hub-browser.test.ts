import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { randomSecret } from '../helpers/tokens.ts';
import { errorOf, rawRequest, serve, type Served } from './serve-process.ts';

/** Open a WebSocket with these headers: 'open', or the HTTP status it was refused with. */
function tryConnect(url: string, headers: Record<string, string>): Promise<'open' | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('error', reject);
  });
}

const rebind = 'rebind.evil.example';
const appendBody = JSON.stringify({ events: [{ type: 'user/message', data: { role: 'user', content: 'planted' } }] });
const json = { 'content-type': 'application/json' };

// Holes 2 and 6 of issue 11, through the real CLI: `session-hub serve` without a key is an OPEN hub, and must
// act like one (loopback pages and Host names only), not like a hub with auth.
describe('session-hub serve without a key: an open hub answers only this machine', () => {
  let open: Served;
  let listed: Served;
  let authed: Served;
  beforeAll(async () => {
    [open, listed, authed] = await Promise.all([
      serve([], { LOG_LEVEL: 'warn' }),
      serve(['--allowed-hosts', 'hub.internal,10.1.2.3:9000']),
      serve([], { AUTH_SECRET: randomSecret() }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([open?.stop(), listed?.stop(), authed?.stop()]);
  });

  it('warns AUTH DISABLED once, on stdout with the other startup facts (the log on stderr does not repeat it)', () => {
    expect(open.stdout()).toMatch(/auth: \*\*\* AUTH DISABLED/);
    expect(open.stderr()).not.toMatch(/AUTH DISABLED/);
  });

  it('refuses WebSocket upgrades from other browser origins (403), takes loopback pages and non-browsers', async () => {
    expect(await tryConnect(open.wsUrl, { origin: 'https://evil.example' })).toBe(403);
    expect(await tryConnect(open.wsUrl, { origin: `http://${rebind}` })).toBe(403);
    expect(await tryConnect(open.wsUrl, { origin: 'http://localhost:5173' })).toBe('open');
    expect(await tryConnect(open.wsUrl, {})).toBe('open');
  });

  it('refuses a WebSocket upgrade whose Host is a rebound name, even without an Origin', async () => {
    expect(await tryConnect(open.wsUrl, { host: rebind })).toBe(403);
    expect(await tryConnect(open.wsUrl, { host: `${rebind}:8080` })).toBe(403);
  });

  it('refuses HTTP reads and appends for a rebound Host or a foreign Origin (403), and writes nothing', async () => {
    const events = `${open.url}/v1/sessions/s-rebind/events`;
    for (const headers of [
      { host: rebind },
      { host: `${rebind}:${new URL(open.url).port}` },
      { origin: `http://${rebind}` },
    ]) {
      const read = await rawRequest(events, { headers });
      expect(read.status).toBe(403);
      expect(errorOf(read).code).toBe('FORBIDDEN');
      const append = await rawRequest(events, { method: 'POST', headers: { ...headers, ...json }, body: appendBody });
      expect(append.status).toBe(403);
      expect(await rawRequest(`${open.url}/metrics`, { headers }).then((reply) => reply.status)).toBe(403);
      expect(await rawRequest(`${open.url}/v1/sessions`, { headers }).then((reply) => reply.status)).toBe(403);
    }
    expect(errorOf(await rawRequest(events, { headers: { host: rebind } })).reason).toBe('host-not-allowed');
    expect(errorOf(await rawRequest(events, { headers: { origin: 'https://evil.example' } })).reason).toBe(
      'origin-not-allowed',
    );
    const page = await rawRequest(events);
    expect(page.status).toBe(200);
    expect(JSON.parse(page.body)).toMatchObject({ events: [] });
  });

  it('answers loopback names, loopback pages and health probes for any Host', async () => {
    const port = new URL(open.url).port;
    const events = `${open.url}/v1/sessions/s-local/events`;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'localhost']) {
      expect((await rawRequest(events, { headers: { host } })).status, host).toBe(200);
    }
    const local = await rawRequest(events, {
      method: 'POST',
      headers: { origin: 'http://localhost:5173', ...json },
      body: appendBody,
    });
    expect(local.status).toBe(201);
    expect((await rawRequest(`${open.url}/healthz`, { headers: { host: rebind } })).status).toBe(200);
  });

  it('answers the names of --allowed-hosts (a name alone: every port; name:port: that port only)', async () => {
    const events = `${listed.url}/v1/sessions/s-listed/events`;
    expect((await rawRequest(events, { headers: { host: 'hub.internal:1234' } })).status).toBe(200);
    expect((await rawRequest(events, { headers: { host: '10.1.2.3:9000' } })).status).toBe(200);
    expect((await rawRequest(events, { headers: { host: '10.1.2.3:9001' } })).status).toBe(403);
    expect((await rawRequest(events, { headers: { host: rebind } })).status).toBe(403);
  });

  it('an open hub bound beyond loopback says at start which names it answers', async () => {
    const wide = await serve(['--host', '0.0.0.0']);
    try {
      expect(wide.stdout()).toMatch(/^hosts: .*answers only requests addressed to localhost.*--allowed-hosts/m);
      expect(open.stdout()).not.toMatch(/^hosts: /m);
      expect(listed.stdout()).not.toMatch(/^hosts: /m);
    } finally {
      await wide.stop();
    }
  });

  it('a hub with a key needs no Host check: the token is the defence', async () => {
    const reply = await rawRequest(`${authed.url}/v1/sessions/s/events`, { headers: { host: rebind } });
    expect(reply.status).toBe(401);
    expect(await tryConnect(authed.wsUrl, { origin: 'https://anywhere.example' })).toBe('open');
  });
});
