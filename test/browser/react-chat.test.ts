import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatAgent } from '../../examples/react-chat/agent.ts';
import { MemoryStore } from '../../server/index.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/react-chat/', import.meta.url));
/** Screenshots of every open tab, written when a step fails (the folder is git-ignored). */
const SCREENSHOTS = fileURLToPath(new URL('./dist/react-chat-failures/', import.meta.url));
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
const SESSION = 'browser/react-chat';
const WORDS = 150;
const HOLD_AT = 30;

/**
 * The example app (examples/react-chat: Vite + React + `useChat` from @ai-sdk/react on `HubChatTransport`), built
 * with Vite and driven in headless Chromium against a real hub and the example's agent.
 */
describe('examples/react-chat in headless Chromium: two tabs, a reload mid-stream, stop, a late tab', () => {
  let store: MemoryStore;
  let hub: TestHub;
  let server: Server;
  let browser: Browser;
  let context: BrowserContext;
  let pageUrl: string;
  let stopAgent: () => void = () => undefined;
  /** Holds the agent before word HOLD_AT of the reply to `question` until `release()` (no timing in the test). */
  const holds = new Map<string, { promise: Promise<void>; release: () => void }>();
  const hold = (question: string) => {
    let release: () => void = () => undefined;
    const promise = new Promise<void>((resolve) => {
      release = resolve;
    });
    holds.set(question, { promise, release: () => release() });
  };
  const pages: Page[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const outDir = join(tmpdir(), `react-chat-${process.pid}`);
    await build({
      configFile: join(EXAMPLE, 'vite.config.ts'),
      logLevel: 'error',
      build: { outDir, emptyOutDir: true, chunkSizeWarningLimit: 4096 },
    });
    server = createServer((request, response) => {
      const path = (request.url ?? '/').split('?')[0]!;
      const file = join(outDir, path === '/' ? 'index.html' : path);
      try {
        const body = readFileSync(file);
        response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
      } catch {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    store = new MemoryStore();
    hub = await startHub({ store, allowedOrigins: [`http://127.0.0.1:${port}`] });
    // The agent streams a reply of WORDS words; a held reply waits before word HOLD_AT until the test releases it.
    const reply = (question: string) => Array.from({ length: WORDS }, (_, index) => `${question}-${index} `);
    stopAgent = startChatAgent({
      url: hub.wsUrl,
      sessionId: SESSION,
      model: reply,
      wordDelayMs: 2,
      beforeWord: (question, index) => (index === HOLD_AT ? holds.get(question)?.promise : undefined),
    });
    browser = await launchChromium();
    context = await browser.newContext();
    pageUrl = `http://127.0.0.1:${port}/?${new URLSearchParams({ hub: hub.wsUrl, session: SESSION }).toString()}`;
  }, 120_000);

  afterAll(async () => {
    stopAgent();
    await context?.close();
    await browser?.close();
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
    await hub?.close();
    await store?.close();
  });

  async function open(): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    pages.push(page);
    await page.goto(pageUrl);
    await page.waitForSelector('main[data-session-status="live"]', { timeout: 20_000 });
    return page;
  }

  /** Runs one step of the scenario; when it fails, every open tab is photographed before the error goes on. */
  async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      for (const [index, page] of pages.entries()) {
        if (!page.isClosed()) {
          await page
            .screenshot({ path: join(SCREENSHOTS, `${name}-tab-${index}.png`), fullPage: true })
            .catch(() => undefined);
        }
      }
      throw error;
    }
  }

  const shown = (page: Page) =>
    page.$$eval('#messages li', (items) =>
      items.map((item) => ({
        id: item.dataset['id'],
        role: item.dataset['role'],
        status: item.dataset['turnStatus'],
        text: item.querySelector('.text')?.textContent ?? '',
      })),
    );
  const assistantText = async (page: Page, id: string) =>
    (await shown(page)).find((message) => message.id === id)?.text ?? '';
  const untilWords = (page: Page, id: string, words: number) =>
    page.waitForFunction(
      ([messageId, count]) => {
        const text = document.querySelector(`li[data-id="${messageId}"] .text`)?.textContent ?? '';
        return text.trim().split(/\s+/).filter(Boolean).length >= count;
      },
      [id, words] as const,
      { timeout: 20_000 },
    );
  const untilTurnStatus = (page: Page, id: string, status: string) =>
    page.waitForSelector(`li[data-id="${id}"][data-turn-status="${status}"]`, { timeout: 20_000 });
  const idle = (page: Page) => page.waitForSelector('main[data-chat-status="ready"]', { timeout: 20_000 });
  const expectedReply = (question: string) =>
    Array.from({ length: WORDS }, (_, index) => `${question}-${index}`).join(' ');

  it('streams into both tabs, survives a reload mid-stream, stops for everyone, and shows a late tab the same', async () => {
    const tabA = await step('open-a', open);
    const tabB = await step('open-b', open);

    await step('send-in-a', async () => {
      hold('alpha');
      await tabA.fill('#input', 'alpha');
      await tabA.click('#send');
      // The reply streams into both tabs: each shows part of it before the turn ends.
      await untilWords(tabA, 'turn-1', 5);
      await untilWords(tabB, 'turn-1', 5);
      expect((await assistantText(tabB, 'turn-1')).trim().split(' ').length).toBeLessThanOrEqual(HOLD_AT);
    });

    await step('reload-b-mid-stream', async () => {
      await untilWords(tabB, 'turn-1', HOLD_AT);
      await tabB.reload();
      await tabB.waitForSelector('main[data-session-status="live"]', { timeout: 20_000 });
      await untilWords(tabB, 'turn-1', HOLD_AT); // the open turn, replayed from its start
      await untilTurnStatus(tabB, 'turn-1', 'streaming');
      holds.get('alpha')!.release();
      await untilTurnStatus(tabA, 'turn-1', 'completed');
      await untilTurnStatus(tabB, 'turn-1', 'completed');
      await idle(tabB);
      // No gap, no duplicate: every word once, in order, in both tabs.
      expect((await assistantText(tabA, 'turn-1')).trim()).toBe(expectedReply('alpha'));
      expect((await assistantText(tabB, 'turn-1')).trim()).toBe(expectedReply('alpha'));
    });

    await step('stop-in-b', async () => {
      await idle(tabA);
      hold('beta'); // the reply is held mid-stream until the stop: it never gets to its end
      await tabA.fill('#input', 'beta');
      await tabA.click('#send');
      await untilWords(tabB, 'turn-2', 10);
      await tabB.waitForSelector('#stop:not([disabled])', { timeout: 20_000 });
      await tabB.click('#stop');
      await untilTurnStatus(tabB, 'turn-2', 'interrupted');
      await untilTurnStatus(tabA, 'turn-2', 'interrupted');
      holds.get('beta')!.release();
      // The agent stopped: the log ends with the turn's end, well before the reply's last word.
      const log = await store.read(SESSION, 0, 10_000);
      const end = log.filter((event) => event.type === 'turn/end').at(-1)!;
      expect(end.data).toEqual({ turn: 2, reason: { kind: 'interrupted' } });
      expect(end.seq).toBe(log.length - 1);
      await idle(tabA);
      await idle(tabB);
      expect(await shown(tabA)).toEqual(await shown(tabB));
      expect((await assistantText(tabA, 'turn-2')).split(' ').length).toBeLessThan(WORDS);
    });

    await step('late-tab', async () => {
      const tabC = await open();
      await untilTurnStatus(tabC, 'turn-2', 'interrupted');
      const messages = await shown(tabC);
      expect(messages.map((message) => [message.role, message.status])).toEqual([
        ['user', ''],
        ['assistant', 'completed'],
        ['user', ''],
        ['assistant', 'interrupted'],
      ]);
      expect(messages).toEqual(await shown(tabA));
      expect(pageErrors).toEqual([]);
    });
  }, 120_000);
});
