import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { MemoryStore } from '../../server/index.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

const PAGE = `<!doctype html><html><head><meta charset="utf-8"></head>
<body><div id="root"></div><script type="module" src="/hooks-page.js"></script></body></html>`;

type View = { name: string; sessionId: string };
type Stats = { renders: Record<string, number>; frames: number };

/** useSession in a real React 19 app under Strict Mode (headless Chromium), against a real hub. */
describe('useSession in the browser (Strict Mode)', () => {
  let store: MemoryStore;
  let hub: TestHub;
  let server: Server;
  let browser: Browser;
  let page: Page;
  let writer: HubClient;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const bundle = await build({
      entryPoints: [fileURLToPath(new URL('./hooks-page.tsx', import.meta.url))],
      bundle: true,
      write: false,
      platform: 'browser',
      conditions: ['source', 'browser'],
      format: 'esm',
      target: 'es2022',
      jsx: 'automatic',
      define: { 'process.env.NODE_ENV': '"development"' }, // React's development build: Strict Mode double mounts
      logLevel: 'silent',
    });
    const code = bundle.outputFiles[0]!.text;
    server = createServer((request, response) => {
      if (request.url?.startsWith('/hooks-page.js') === true) {
        response.writeHead(200, { 'content-type': 'text/javascript' }).end(code);
      } else response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    store = new MemoryStore();
    hub = await startHub({ store, allowedOrigins: [`http://127.0.0.1:${port}`] });
    writer = new HubClient({ url: hub.wsUrl });
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`http://127.0.0.1:${port}/?${new URLSearchParams({ hub: hub.wsUrl }).toString()}`);
    await page.waitForFunction(() => 'hooksPage' in window);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    writer?.close();
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
    await hub?.close();
    await store?.close();
  });

  const show = (views: View[]) =>
    page.evaluate(
      (next) => (window as unknown as { hooksPage: { show(v: View[]): void } }).hooksPage.show(next),
      views,
    );
  const stats = () => page.evaluate(() => (window as unknown as { hooksPage: { stats(): Stats } }).hooksPage.stats());
  const watchers = async (sessionId: string) => {
    const response = await fetch(`${hub.url}/v1/sessions/${encodeURIComponent(sessionId)}/presence`);
    return ((await response.json()) as { watchers: { label?: string }[] }).watchers;
  };
  const untilLastSeq = (name: string, seq: number) =>
    page.waitForSelector(`section[data-name="${name}"][data-status="live"][data-last-seq="${seq}"]`, {
      state: 'attached',
      timeout: 20_000,
    });
  const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } }) as const;

  it('shares one subscription per session among components, across Strict Mode double mounts', async () => {
    await writer.append('hooks/shared', [user('one'), user('two')]);
    await show([
      { name: 'a', sessionId: 'hooks/shared' },
      { name: 'b', sessionId: 'hooks/shared' },
    ]);
    await untilLastSeq('a', 1);
    await untilLastSeq('b', 1);
    // One watcher (the first component's label): Strict Mode's mount, unmount, mount did not make a second.
    await vi.waitFor(async () =>
      expect(await watchers('hooks/shared')).toEqual([expect.objectContaining({ label: 'a' })]),
    );
    await writer.append('hooks/shared', user('three'));
    await untilLastSeq('a', 2);
    await untilLastSeq('b', 2);
    expect(await page.$eval('section[data-name="b"]', (node) => node.dataset['messages'])).toBe('3');
  });

  it('follows a changed session id, and closes the subscription once its last component unmounts', async () => {
    await writer.append('hooks/other', user('elsewhere'));
    await show([
      { name: 'a', sessionId: 'hooks/other' },
      { name: 'b', sessionId: 'hooks/shared' },
    ]);
    await untilLastSeq('a', 0);
    await show([{ name: 'a', sessionId: 'hooks/other' }]);
    await vi.waitFor(async () => expect(await watchers('hooks/shared')).toEqual([]));
    expect(await watchers('hooks/other')).toHaveLength(1);
    await show([]);
    await vi.waitFor(async () => expect(await watchers('hooks/other')).toEqual([]));
  });

  it('unmounts during catch-up without an error, and mounts again from scratch', async () => {
    const drafts = Array.from({ length: 20_000 }, (_, index) => user(`m${index}`));
    for (let start = 0; start < drafts.length; start += 500) {
      await writer.append('hooks/big', drafts.slice(start, start + 500));
    }
    await show([{ name: 'big', sessionId: 'hooks/big' }]);
    await show([]);
    await vi.waitFor(async () => expect(await watchers('hooks/big')).toEqual([]));
    await show([{ name: 'big', sessionId: 'hooks/big' }]);
    await untilLastSeq('big', drafts.length - 1);
    expect(pageErrors).toEqual([]);
  });

  it('renders at most once per animation frame while chunks stream in', async () => {
    await show([{ name: 'stream', sessionId: 'hooks/stream' }]);
    await writer.append('hooks/stream', user('go'));
    await untilLastSeq('stream', 0);
    const before = await stats();
    const chunks = 1000;
    const pending: Promise<unknown>[] = [];
    for (let index = 0; index < chunks; index++) {
      pending.push(writer.append('hooks/stream', { type: 'ui/chunk', data: { index } }));
    }
    await Promise.all(pending);
    await untilLastSeq('stream', chunks);
    const after = await stats();
    const renders = (after.renders['stream'] ?? 0) - (before.renders['stream'] ?? 0);
    const frames = after.frames - before.frames;
    // Strict Mode renders each update twice in development; a render per event would be 2,000 here.
    expect(renders / 2).toBeLessThanOrEqual(frames + 1);
    expect(renders).toBeLessThan(chunks);
    expect(pageErrors).toEqual([]);
  });
});
