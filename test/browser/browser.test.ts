import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { MemoryStore } from '../../server/index.ts';
import { deriveMessages } from '../../shared/index.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>session-hub SDK</title></head>
<body><p id="status">connecting</p><ul id="messages"></ul><script type="module" src="/page.js"></script></body></html>`;

/** Bundle the test page for the browser: platform browser, `source` and `browser` conditions (`#transport` without `ws`). */
async function bundlePage(): Promise<{ code: string; inputs: string[]; imports: string[] }> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./page.ts', import.meta.url))],
    bundle: true,
    write: false,
    platform: 'browser',
    conditions: ['source', 'browser'],
    format: 'esm',
    target: 'es2022',
    metafile: true,
    logLevel: 'silent',
  });
  const output = Object.values(result.metafile.outputs)[0]!;
  return {
    code: result.outputFiles[0]!.text,
    inputs: Object.keys(result.metafile.inputs),
    imports: output.imports.map((entry) => entry.path),
  };
}

/**
 * A host name that Chromium resolves to 127.0.0.1 (`--host-resolver-rules`): a page served under it is plain http on a
 * name that is not `localhost`, so it is not a secure context (no `crypto.randomUUID`), while every byte stays on
 * loopback.
 */
const INSECURE_HOST = 'insecure-origin.test';
const INSECURE_ARGS = [`--host-resolver-rules=MAP ${INSECURE_HOST} 127.0.0.1`];

describe('the SDK in a real browser (headless Debian Chromium)', () => {
  let bundle: Awaited<ReturnType<typeof bundlePage>>;
  let store: MemoryStore;
  let hub: TestHub;
  let server: Server;
  let browser: Browser;
  let client: HubClient;

  const serve = (request: IncomingMessage, response: ServerResponse): void => {
    if (request.url?.startsWith('/page.js') === true) {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle.code);
    } else response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  };

  beforeAll(async () => {
    bundle = await bundlePage();
    server = createServer(serve);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    store = new MemoryStore();
    // An open hub takes loopback pages only: the page on a non-loopback origin must be allowed by name.
    const pageOrigins = [`http://127.0.0.1:${address.port}`, `http://${INSECURE_HOST}:${address.port}`];
    // The insecure page reaches this open hub under a name of its own: a Host it must be told to answer.
    hub = await startHub({ store, allowedOrigins: pageOrigins, allowedHosts: [INSECURE_HOST] });
    client = new HubClient({ url: hub.wsUrl });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    client?.close();
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
    await hub?.close();
    await store?.close();
  });

  it('the browser bundle contains no ws and no Node built-ins', () => {
    expect(bundle.inputs.some((input) => /node_modules\/ws\//.test(input))).toBe(false);
    expect(bundle.inputs.some((input) => input.endsWith('transport-browser.ts'))).toBe(true);
    expect(bundle.inputs.some((input) => input.endsWith('transport-node.ts'))).toBe(false);
    expect(bundle.imports).toEqual([]);
    expect(bundle.code).not.toMatch(/(?:from|import|require\()\s*\(?["'](?:node:|ws["'])/);
  });

  it('a page on an insecure origin (plain http, not localhost: no crypto.randomUUID) can append', async () => {
    const insecureBrowser = await launchChromium(INSECURE_ARGS);
    try {
      const page = await insecureBrowser.newPage();
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no address');
      const hubUrl = new URL(hub.wsUrl);
      hubUrl.hostname = INSECURE_HOST;
      const query = new URLSearchParams({ hub: hubUrl.toString(), session: 'browser/insecure', append: 'from http' });
      await page.goto(`http://${INSECURE_HOST}:${address.port}/?${query.toString()}`);
      await page.waitForFunction(() => document.body.dataset['appended'] !== undefined, undefined, {
        timeout: 20_000,
      });
      const seen = await page.evaluate(() => ({ ...document.body.dataset }));
      expect(seen).toMatchObject({ secureContext: 'false', hasRandomUuid: 'false', appended: '0' });
      const log = await store.read('browser/insecure', 0, 10);
      expect(log.map((event) => event.data)).toEqual([{ role: 'user', content: 'from http' }]);
    } finally {
      await insecureBrowser.close();
    }
  });

  it('a page subscribes to a live session and shows the derived messages as Node appends', async () => {
    const sessionId = 'browser/1';
    await client.append(sessionId, [
      { type: 'system/message', data: { content: 'You are helpful.' } },
      { type: 'user/message', data: { role: 'user', content: 'Hello from Node' } },
    ]);
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    const query = new URLSearchParams({ hub: hub.wsUrl, session: sessionId });
    await page.goto(`http://127.0.0.1:${address.port}/?${query.toString()}`);
    await page.waitForSelector('#messages li:nth-child(2)', { timeout: 20_000 });
    await page.waitForFunction(() => document.getElementById('status')?.textContent?.startsWith('live'));

    await client.append(sessionId, [
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: { turn: 1, step: 1 } },
      {
        type: 'assistant/message',
        data: { turn: 1, step: 1, message: { role: 'assistant', content: 'Hi, browser!' } },
      },
      {
        type: 'system/message',
        data: { content: 'You are terse.' },
        surfaceOp: { op: 'replace', startSeq: 0, endSeq: 0 },
        sourceEventSeqs: [0],
      },
    ]);
    await page.waitForFunction(() => document.body.dataset['lastSeq'] === '5', undefined, { timeout: 20_000 });
    const shown = await page.$$eval('#messages li', (items) =>
      items.map((item) => ({ role: item.getAttribute('data-role'), text: item.textContent })),
    );
    const log = await store.read(sessionId, 0, 100);
    const expected = deriveMessages(log).map((message) => ({ role: message.role, text: String(message.content) }));
    expect(shown).toEqual(expected);
    expect(shown[0]).toEqual({ role: 'system', text: 'You are terse.' });
    expect(await page.evaluate(() => document.body.dataset['connection'])).toBe('connected');
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
