import { request } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from '../../server/http/inspector-route.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

const WAIT = { timeout: 20_000 };

/** The inspector page's CSP, asked for with this `Host` header (fetch may not set it). */
function cspFor(hub: TestHub, host: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const asked = request({ host: '127.0.0.1', port: hub.port, path: '/inspect', headers: { host } }, (reply) => {
      reply.resume();
      const policy = reply.headers['content-security-policy'];
      resolve(typeof policy === 'string' ? policy : undefined);
    });
    asked.once('error', reject);
    asked.end();
  });
}

/** The connect-src directive of a policy. */
function connectSrc(policy: string | undefined): string | undefined {
  return policy
    ?.split(';')
    .map((directive) => directive.trim())
    .find((directive) => directive.startsWith('connect-src '));
}

describe("the inspector's CSP lets the page connect to its own origin only", () => {
  let store: MemoryStore;
  let hub: TestHub;
  let browser: Browser;

  beforeAll(async () => {
    store = new MemoryStore();
    hub = await startHub({ store });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await hub?.close();
    await store?.close();
  });

  it('connect-src names the host and port the page was asked for, over ws: and wss:, and no other', async () => {
    const own = `127.0.0.1:${hub.port}`;
    expect(connectSrc(await cspFor(hub, own))).toBe(`connect-src 'self' ws://${own} wss://${own}`);
    expect(connectSrc(await cspFor(hub, `localhost:${hub.port}`))).toBe(
      `connect-src 'self' ws://localhost:${hub.port} wss://localhost:${hub.port}`,
    );
    // A Host that is not a plain host[:port] (a hub with auth answers every name) never becomes a source.
    for (const host of ['evil.example; connect-src *', 'a b', "x'", 'user@host']) {
      expect(connectSrc(contentSecurityPolicy(host)), host).toBe("connect-src 'self'");
    }
    expect(connectSrc(contentSecurityPolicy('[::1]:8080'))).toBe("connect-src 'self' ws://[::1]:8080 wss://[::1]:8080");
  });

  it('in Chromium the page reaches its own hub, and a WebSocket or fetch to another host is refused', async () => {
    const page = await browser.newPage();
    await page.goto(`${hub.url}/inspect?session=csp/own`);
    await page.waitForSelector('[data-testid="subscription-state"].state-live', WAIT);
    // 127.0.0.2 is this same hub on another loopback address: another origin to the browser.
    const elsewhere = `127.0.0.2:${hub.port}`;
    const refused = await page.evaluate(async (host) => {
      const violations: string[] = [];
      const two = new Promise<void>((resolve) => {
        document.addEventListener('securitypolicyviolation', (event) => {
          violations.push(`${event.effectiveDirective} ${event.blockedURI}`);
          if (violations.length === 2) resolve();
        });
      });
      try {
        new WebSocket(`ws://${host}/v1/ws`);
      } catch {
        // Some browsers throw as well as report.
      }
      await fetch(`http://${host}/healthz`).catch(() => undefined);
      await two;
      return violations.sort();
    }, elsewhere);
    expect(refused).toEqual([`connect-src http://${elsewhere}/healthz`, `connect-src ws://${elsewhere}/v1/ws`]);
    await page.close();
  });
});
