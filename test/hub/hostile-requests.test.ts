import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useMemoryHub } from '../helpers/hub.ts';

/** Send raw bytes on a fresh TCP connection and collect what comes back until the hub closes it. */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      reply += chunk;
      if (reply.includes('\r\n\r\n')) socket.end();
    });
    socket.on('close', () => resolve(reply));
    socket.on('error', reject);
  });
}

/** Write `request`, then reset the connection at once (RST), before the hub's answer can be written. */
function resetRightAfter(port: number, request: string): Promise<void> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1', () => {
      socket.write(request, () => {
        socket.resetAndDestroy();
        resolve();
      });
    });
    socket.on('error', () => resolve());
  });
}

const upgrade = (path: string) =>
  `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
  'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n';

/** Request targets and resets any peer can send: each gets an answer (or nothing), never a crashed node. */
describe('hub: hostile request targets and resets', () => {
  const fixture = useMemoryHub();

  it('answers 400 BAD_REQUEST to targets that are not URLs, on HTTP and on upgrades', async () => {
    for (const target of ['http://[', 'http://a:99999/x', '*']) {
      const reply = await exchange(
        fixture.hub.port,
        `GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
      );
      expect(reply).toMatch(/^HTTP\/1\.1 400 /);
      expect(reply).toContain('"code":"BAD_REQUEST"');
      expect(await exchange(fixture.hub.port, upgrade(target))).toMatch(/^HTTP\/1\.1 400 /);
    }
    expect((await fetch(`${fixture.hub.url}/healthz`)).status).toBe(200);
  });

  it('reads targets starting with // as paths (they used to name a host, or crash the node)', async () => {
    for (const target of ['//[', '//a:99999/x', '//healthz']) {
      const reply = await exchange(
        fixture.hub.port,
        `GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
      );
      expect(reply).toMatch(/^HTTP\/1\.1 404 /);
      expect(await exchange(fixture.hub.port, upgrade(target))).toMatch(/^HTTP\/1\.1 404 /);
    }
    expect((await fetch(`${fixture.hub.url}/healthz`)).status).toBe(200);
  });

  it('survives peers that reset the connection while an upgrade is refused', async () => {
    for (let round = 0; round < 50; round++) await resetRightAfter(fixture.hub.port, upgrade('/nope'));
    expect((await fetch(`${fixture.hub.url}/healthz`)).status).toBe(200);
    expect(await exchange(fixture.hub.port, upgrade('/nope'))).toMatch(/^HTTP\/1\.1 404 /);
  });
});
