import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { MemoryStore } from '../../server/index.ts';
import { deriveMessages } from '../../shared/index.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

const PAGE = `<!doctype html><html><head><meta charset="utf-8"></head>
<body><ul id="messages"></ul><script type="module" src="/reload-page.js"></script></body></html>`;
const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } }) as const;

/**
 * A browser UI survives a page reload by keeping its snapshot in IndexedDB (docs/client.md): after the reload it
 * shows the kept messages at once, receives only what it lacked, and a session replaced meanwhile is a reset.
 */
describe('a page that keeps its snapshot in IndexedDB resumes after a reload (headless Chromium)', () => {
  let store: MemoryStore;
  let hub: TestHub;
  let server: Server;
  let browser: Browser;
  let client: HubClient;
  let pageUrl: string;

  beforeAll(async () => {
    const bundle = await build({
      entryPoints: [fileURLToPath(new URL('./reload-page.ts', import.meta.url))],
      bundle: true,
      write: false,
      platform: 'browser',
      conditions: ['source', 'browser'], // the sources, like every suite (dist/ may be rebuilt meanwhile)
      format: 'esm',
      target: 'es2022',
      logLevel: 'silent',
    });
    const code = bundle.outputFiles[0]!.text;
    server = createServer((request, response) => {
      if (request.url?.startsWith('/reload-page.js') === true) {
        response.writeHead(200, { 'content-type': 'text/javascript' }).end(code);
      } else response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    store = new MemoryStore();
    hub = await startHub({ store, allowedOrigins: [`http://127.0.0.1:${port}`] });
    client = new HubClient({ url: hub.wsUrl });
    browser = await launchChromium();
    pageUrl = `http://127.0.0.1:${port}/?${new URLSearchParams({ hub: hub.wsUrl, session: 'browser/reload' }).toString()}`;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    client?.close();
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
    await hub?.close();
    await store?.close();
  });

  const report = (page: Page) => page.evaluate(() => ({ ...document.body.dataset }));
  const shown = (page: Page) =>
    page.$$eval('#messages li', (items) =>
      items.map((item) => ({ role: item.dataset['role'], text: item.textContent })),
    );
  const expectedMessages = async () =>
    deriveMessages(await store.read('browser/reload', 0, 1000)).map((message) => ({
      role: message.role,
      text: String(message.content),
    }));
  const untilSaved = (page: Page, seq: number) =>
    page.waitForFunction((last) => document.body.dataset['savedLastSeq'] === String(last), seq, { timeout: 20_000 });

  it('shows the kept messages at once, receives only the new events, and never mixes a rewritten session', async () => {
    const sessionId = 'browser/reload';
    await client.append(sessionId, [
      { type: 'system/message', data: { content: 'be brief' } },
      user('one'),
      user('two'),
    ]);
    const context = await browser.newContext(); // one origin's IndexedDB, kept across pages
    const pageErrors: string[] = [];
    const open = async () => {
      const opened = await context.newPage();
      opened.on('pageerror', (error) => pageErrors.push(error.message));
      await opened.goto(pageUrl);
      return opened;
    };
    const page = await open();
    await untilSaved(page, 2);
    expect(await report(page)).toMatchObject({ keptLastSeq: '-1', received: '3' });

    // Reload with two new events: the kept three are not sent again.
    await client.append(sessionId, [user('three'), user('four')]);
    await page.reload();
    await untilSaved(page, 4);
    expect(await report(page)).toMatchObject({ keptLastSeq: '2', seededMessages: '3', received: '2' });
    expect(await shown(page)).toEqual(await expectedMessages());

    // The session is deleted and rewritten while the page is closed: a reset, then only the new history.
    await page.close();
    await store.deleteSession(sessionId);
    await client.append(sessionId, [user('new one'), user('new two')]);
    const reopened = await open();
    await untilSaved(reopened, 1);
    const afterRewrite = await report(reopened);
    expect(afterRewrite).toMatchObject({ keptLastSeq: '4', resets: '1', received: '2' });
    expect(afterRewrite['error']).toBeUndefined();
    expect(await shown(reopened)).toEqual([
      { role: 'user', text: 'new one' },
      { role: 'user', text: 'new two' },
    ]);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
