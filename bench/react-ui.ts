/**
 * The React figures of docs/react.md, in headless Chromium (Debian's /usr/bin/chromium) against one hub node on the
 * embedded memory engine, on loopback:
 * - renders per second of one mounted `useSession` while 1,000 chunks per second stream into its session (the
 *   hooks test page, test/react/hooks-page.tsx, React's production build);
 * - the example app's (examples/react-chat, built with Vite) time to first message and to live on a session of
 *   100,000 events (chat turns of streamed chunks), without hub snapshots.
 *
 * Run on its own: `node --conditions=source --import tsx bench/react-ui.ts [--seconds 5] [--events 100000]`.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { build as viteBuild } from 'vite';
import { HubClient, type EventDraft } from '../client/index.ts';
import { MemoryStore } from '../server/index.ts';
import { launchChromium } from '../test/helpers/chromium.ts';
import { startHub } from '../test/helpers/hub.ts';

const { values } = parseArgs({
  options: { seconds: { type: 'string' }, events: { type: 'string' }, runs: { type: 'string' } },
});
const runs = Number(values.runs ?? 3);
const seconds = Number(values.seconds ?? 5);
const totalEvents = Number(values.events ?? 100_000);
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript' };

function serve(files: (path: string) => Buffer | string | undefined): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    const body = files(path);
    if (body === undefined) response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'text/html' }).end(body);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ server, origin: `http://127.0.0.1:${port}` });
    }),
  );
}

const hooksBundle = await build({
  entryPoints: [fileURLToPath(new URL('../test/react/hooks-page.tsx', import.meta.url))],
  bundle: true,
  write: false,
  platform: 'browser',
  conditions: ['source', 'browser'],
  format: 'esm',
  jsx: 'automatic',
  minify: true,
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'silent',
});
const exampleDir = join(tmpdir(), `react-chat-bench-${process.pid}`);
await viteBuild({
  configFile: fileURLToPath(new URL('../examples/react-chat/vite.config.ts', import.meta.url)),
  logLevel: 'error',
  build: { outDir: exampleDir, emptyOutDir: true, chunkSizeWarningLimit: 4096 },
});
const hooksPage = `<!doctype html><html><body><div id="root"></div><script type="module" src="/hooks-page.js"></script></body></html>`;
const hooks = await serve((path) => (path === '/hooks-page.js' ? hooksBundle.outputFiles[0]!.text : hooksPage));
const example = await serve((path) => {
  try {
    return readFileSync(join(exampleDir, path === '/' ? 'index.html' : path));
  } catch {
    return undefined;
  }
});
const store = new MemoryStore();
const hub = await startHub({ store, allowedOrigins: [hooks.origin, example.origin] });
const writer = new HubClient({ url: hub.wsUrl });
const browser = await launchChromium();

// 1. Renders per second at 1,000 chunks per second (10 chunks every 10 ms, each its own append).
{
  const page = await browser.newPage();
  await page.goto(`${hooks.origin}/?hub=${encodeURIComponent(hub.wsUrl)}`);
  await page.waitForFunction(() => 'hooksPage' in window);
  await page.evaluate(() =>
    (window as unknown as { hooksPage: { show(v: object[]): void } }).hooksPage.show([
      { name: 'stream', sessionId: 'bench/stream' },
    ]),
  );
  await writer.append('bench/stream', { type: 'user/message', data: { role: 'user', content: 'go' } });
  await page.waitForSelector('section[data-status="live"][data-last-seq="0"]', { state: 'attached' });
  type Stats = { renders: Record<string, number>; frames: number };
  const stats = () => page.evaluate(() => (window as unknown as { hooksPage: { stats(): Stats } }).hooksPage.stats());
  const before = await stats();
  const started = performance.now();
  let sent = 0;
  // 1,000 chunks per second: each tick appends what the clock says is due, as one batch (as AgentWriter does).
  while (performance.now() - started < seconds * 1000) {
    const due = Math.min(100, Math.floor(performance.now() - started) - sent);
    const batch = Array.from({ length: due }, () => ({ type: 'ui/chunk', data: { index: sent++ } }) as EventDraft);
    if (batch.length > 0) void writer.append('bench/stream', batch);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await page.waitForSelector(`section[data-last-seq="${sent}"]`, { state: 'attached', timeout: 60_000 });
  const elapsed = (performance.now() - started) / 1000;
  const after = await stats();
  const renders = (after.renders['stream'] ?? 0) - (before.renders['stream'] ?? 0);
  console.log(
    `useSession: ${sent} chunks in ${elapsed.toFixed(1)} s (${Math.round(sent / elapsed)}/s): ` +
      `${renders} renders (${(renders / elapsed).toFixed(1)}/s), ${after.frames - before.frames} animation frames`,
  );
  await page.close();
}

// 2. The example on a 100,000-event session: chat turns of one step, 40 chunks each.
{
  const sessionId = 'bench/long-chat';
  const drafts: EventDraft[] = [];
  for (let turn = 1; drafts.length < totalEvents - 48; turn++) {
    drafts.push({ type: 'user/message', data: { role: 'user', content: `question ${turn}`, id: `u${turn}` } });
    drafts.push({ type: 'turn/start', data: { turn } }, { type: 'step/start', data: { turn, step: 1 } });
    for (let chunk = 0; chunk < 40; chunk++) {
      drafts.push({
        type: 'assistant/chunk',
        data: { turn, step: 1, chunk: { type: 'text-delta', text: `w${chunk} ` } },
      });
    }
    drafts.push(
      { type: 'assistant/message', data: { turn, step: 1, message: { role: 'assistant', content: 'answer' } } },
      { type: 'step/end', data: { turn, step: 1 } },
      { type: 'turn/end', data: { turn, reason: { kind: 'completed' } } },
    );
  }
  for (let start = 0; start < drafts.length; start += 500) {
    await writer.append(sessionId, drafts.slice(start, start + 500));
  }
  {
    // The floor: the SDK alone (Node, no React, no rendering) subscribing from seq 0 until live.
    const probe = new HubClient({ url: hub.wsUrl });
    const started = performance.now();
    await probe.subscribe(sessionId).whenLive();
    console.log(
      `HubClient in Node on ${drafts.length} events: live after ${Math.round(performance.now() - started)} ms`,
    );
    probe.close();
  }
  for (let run = 0; run < runs; run++) {
    const page = await browser.newPage();
    await page.goto(`${example.origin}/?${new URLSearchParams({ hub: hub.wsUrl, session: sessionId }).toString()}`);
    await page.waitForSelector('#messages li', { timeout: 120_000 });
    const firstMessage = await page.evaluate(() => performance.now());
    await page.waitForSelector('main[data-session-status="live"]', { timeout: 120_000 });
    const live = await page.evaluate(() => performance.now());
    const shown = await page.$$eval('#messages li', (items) => items.length);
    console.log(
      `example on ${drafts.length} events: first message ${Math.round(firstMessage)} ms, live ${Math.round(live)} ms ` +
        `after navigation start (${shown} messages shown)`,
    );
    await page.close();
  }
}

await browser.close();
writer.close();
await hub.close();
await store.close();
hooks.server.close();
example.server.close();
