import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { HubAuth } from '../../server/auth/auth-seam.ts';
import { parseServeArgs } from '../../server/cli/cli-args.ts';
import { isLoopbackOrigin, originPolicy } from '../../server/ws/origin-policy.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

/** Open a WebSocket with the given Origin (none when undefined): 'open', or the HTTP status it was refused with. */
function tryConnect(url: string, origin: string | undefined): Promise<'open' | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, origin === undefined ? {} : { origin });
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('error', (error) => reject(error));
  });
}

const anyone: HubAuth = { authenticate: () => ({ subject: 'anyone' }), authorize: () => true };

describe('hub: which browser origins may open a WebSocket', () => {
  const store = new MemoryStore();
  let open: TestHub;
  let listed: TestHub;
  let authed: TestHub;
  beforeAll(async () => {
    open = await startHub({ store });
    listed = await startHub({ store, allowedOrigins: ['https://app.example.com'] });
    authed = await startHub({ store, auth: anyone });
  });
  afterAll(async () => {
    await Promise.all([open.close(), listed.close(), authed.close()]);
    await store.close();
  });

  it('an open hub takes loopback pages and non-browser clients, and refuses other origins with 403', async () => {
    expect(await tryConnect(open.wsUrl, 'https://evil.example')).toBe(403);
    expect(await tryConnect(open.wsUrl, 'http://localhost.evil.example')).toBe(403);
    expect(await tryConnect(open.wsUrl, 'null')).toBe(403);
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:8080', 'https://[::1]', undefined]) {
      expect(await tryConnect(open.wsUrl, origin)).toBe('open');
    }
  });

  it('a listed origin (and no origin) may connect, others may not; with auth, any origin may', async () => {
    expect(await tryConnect(listed.wsUrl, 'https://app.example.com')).toBe('open');
    expect(await tryConnect(listed.wsUrl, undefined)).toBe('open');
    expect(await tryConnect(listed.wsUrl, 'http://localhost:5173')).toBe(403);
    expect(await tryConnect(authed.wsUrl, 'https://anywhere.example')).toBe('open');
  });

  it('parses --allowed-origins / ALLOWED_ORIGINS, refusing what is not an origin', () => {
    const parse = (args: string[], env: Record<string, string> = {}) => parseServeArgs(args, env);
    expect(parse(['--allowed-origins', 'https://a.example, http://b.example:8080'])).toMatchObject({
      allowedOrigins: ['https://a.example', 'http://b.example:8080'],
    });
    expect(parse([], { ALLOWED_ORIGINS: '*' })).toMatchObject({ allowedOrigins: '*' });
    expect(parse([])).toMatchObject({ allowedOrigins: undefined });
    expect(() => parse(['--allowed-origins', 'https://a.example/path'])).toThrow(/invalid origin/);
    expect(() => parse(['--allowed-origins', 'not a url'])).toThrow(/invalid origin/);
    expect(() => parse(['--allowed-origins', ','])).toThrow(/at least one origin/);
  });

  it('tells loopback origins apart from look-alikes', () => {
    expect(isLoopbackOrigin('http://localhost')).toBe(true);
    expect(isLoopbackOrigin('https://127.0.0.1:3000')).toBe(true);
    expect(isLoopbackOrigin('http://127.0.0.1.nip.io')).toBe(false);
    expect(isLoopbackOrigin('file://localhost')).toBe(false);
    expect(originPolicy(['https://App.Example.com/'], false)('https://app.example.com')).toBe(true);
  });
});
