import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentWriter, HubClient } from '../../client/index.ts';
import { MessageProjector } from '../../shared/index.ts';
import type { ValidatedDraft } from '../../server/store/event-store.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { HubProcess } from '../helpers/hub-process.ts';
import { secureTest, type SecureHub } from '../security/secure-hub.ts';

/**
 * Every run writes a screenshot of the session view: to the system's temp dir, or with `UPDATE_SCREENSHOTS=1` over
 * the picture the README shows (docs/images/inspector.png), so an ordinary run leaves the work tree clean.
 */
const SCREENSHOT =
  process.env['UPDATE_SCREENSHOTS'] === '1'
    ? fileURLToPath(new URL('../../docs/images/inspector.png', import.meta.url))
    : join(tmpdir(), 'session-hub-inspector.png');
const WAIT = { timeout: 20_000 };

/** The texts of the transcript's messages, in order (`role: text`). */
async function transcript(page: Page): Promise<string[]> {
  return page.$$eval('[data-testid="transcript"] .message', (nodes) =>
    nodes.map((node) => `${(node as HTMLElement).dataset['role']}: ${node.querySelector('.text')?.textContent ?? ''}`),
  );
}

async function waitForText(page: Page, selector: string, text: string): Promise<void> {
  await page.waitForFunction(
    ([css, wanted]) => [...document.querySelectorAll(css!)].some((node) => node.textContent?.includes(wanted!)),
    [selector, text] as const,
    WAIT,
  );
}

describe('the web inspector in real Chromium (open hub, memory engine)', () => {
  let store: MemoryStore;
  let hub: TestHub;
  let browser: Browser;
  let client: HubClient;
  const sessionId = 'demo/calculator';

  beforeAll(async () => {
    store = new MemoryStore();
    hub = await startHub({ store });
    client = new HubClient({ url: hub.wsUrl });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    client?.close();
    await hub?.close();
    await store?.close();
  });

  it('serves the page and its hashed assets with content types and caching; / redirects to it', async () => {
    const root = await fetch(hub.url, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/inspect');
    const page = await fetch(`${hub.url}/inspect`);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const html = await page.text();
    const script = /src="\/inspect\/(assets\/main-[\w]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${hub.url}/inspect/${script!}`);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${hub.url}/inspect/assets/nothing.js`)).status).toBe(404);
  });

  it('shows a session an agent writes: messages, streamed text, tool results, time travel and a replace', async () => {
    const writer = await AgentWriter.attach(client, sessionId);
    await writer.setSystemPrompt('You are a careful calculator.');
    await writer.startTurn();
    await writer.userMessage('What is 17 × 23?');
    await writer.startStep();
    await writer.streamChunk({ type: 'text-delta', text: 'Let me ' });
    await writer.streamChunk({ type: 'text-delta', text: 'compute.' });
    await writer.commitAssistantMessage({
      content: [
        { type: 'text', text: 'Let me compute.' },
        { type: 'tool_use', id: 'call_1', name: 'multiply', input: { a: 17, b: 23 } },
      ],
    });
    await writer.toolCall({ callId: 'call_1', name: 'multiply', arguments: { a: 17, b: 23 } });
    const result = await writer.toolResult({ callId: 'call_1', content: '391' });
    await writer.endStep();

    const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    await page.goto(`${hub.url}/inspect?session=${encodeURIComponent(sessionId)}`);
    await page.waitForSelector('[data-testid="subscription-state"].state-live', WAIT);
    await waitForText(page, '[data-testid="transcript"] .role-tool', '391');
    // Presence: the page itself watches; another subscription shows up: its subject, then its label.
    const watcher = client.subscribe(sessionId, { label: 'agent-ui' });
    await waitForText(page, '[data-testid="watchers"]', '2 watching');
    expect(await page.textContent('[data-testid="watchers"]')).toMatch(
      /anonymous @ \S+, label "inspector"; anonymous @ \S+, label "agent-ui"|label "agent-ui"; anonymous @ \S+, label "inspector"/,
    );
    watcher.close();
    await waitForText(page, '[data-testid="watchers"]', '1 watching');
    expect(await transcript(page)).toEqual([
      'system: You are a careful calculator.',
      'user: What is 17 × 23?',
      'assistant: Let me compute.',
      'tool: 391',
    ]);
    expect(await page.textContent('[data-testid="transcript"] .tool-use')).toContain('multiply');
    const stored = await store.read(sessionId, 0, 100);
    expect(
      await page.$$eval('[data-testid="event-log"] .event-row', (rows) =>
        rows.map((row) => Number((row as HTMLElement).dataset['seq'])),
      ),
    ).toEqual(stored.map((event) => event.seq));
    // Every type is shown whole (assistant/message is the longest) and ends before the next column starts.
    const overlaps = await page.$$eval('[data-testid="event-log"] .event-row', (rows) =>
      rows.flatMap((row) => {
        const type = row.querySelector<HTMLElement>('.type')!;
        const next = type.nextElementSibling!.getBoundingClientRect();
        const cut = type.scrollWidth > type.clientWidth;
        return cut || type.getBoundingClientRect().right > next.left ? [type.textContent] : [];
      }),
    );
    expect(overlaps).toEqual([]);

    // Live: a step streams text (shown as it arrives), then a new append appears.
    await writer.startStep();
    await writer.streamChunk({ type: 'text-delta', text: '17 × 23 ' });
    await writer.streamChunk({ type: 'text-delta', text: '= 391' });
    await waitForText(page, '[data-role="assistant-streaming"]', '17 × 23 = 391');
    await writer.commitAssistantMessage({ content: '17 × 23 = 391' });
    await page.waitForFunction(
      () => document.querySelector('[data-role="assistant-streaming"]') === null,
      undefined,
      WAIT,
    );
    await waitForText(page, '[data-testid="transcript"] .role-assistant', '17 × 23 = 391');

    // Time travel: as of the user message, the transcript holds only what came before it.
    const userSeq = (await store.read(sessionId, 0, 100)).find((event) => event.type === 'user/message')!.seq;
    await page.$eval(
      '[data-testid="time-travel"]',
      (input, seq) => {
        (input as HTMLInputElement).value = String(seq);
        input.dispatchEvent(new Event('input', { bubbles: true }));
      },
      userSeq,
    );
    await page.waitForFunction(
      (seq) => document.querySelector('[data-testid="travel-at"]')?.textContent === `as of seq ${seq}`,
      userSeq,
      WAIT,
    );
    expect(await transcript(page)).toEqual(['system: You are a careful calculator.', 'user: What is 17 × 23?']);
    await page.click('text=back to live');

    // A replace (pruning the tool output) shows the new text and marks the replaced event.
    const pruned = await writer.pruneToolResult('call_1', '[pruned]');
    await waitForText(page, '[data-testid="transcript"] .role-tool', '[pruned]');
    await page.waitForSelector(`[data-testid="event-log"] .event-row.replaced[data-seq="${result.seq}"]`, WAIT);
    expect(await page.textContent(`.event-row[data-seq="${result.seq}"] .replaced-by`)).toBe(
      `replaced by ${pruned.seq}`,
    );
    await writer.endStep();
    await writer.endTurn();
    await page.waitForSelector(`[data-testid="event-log"] .event-row[data-seq="${pruned.seq + 2}"]`, WAIT);

    // An open hub grants append: the page offers it, and what it appends reaches the log.
    await page.fill(
      '[data-testid="append-box"] textarea',
      '{ "type": "app/note", "data": { "text": "from the inspector" } }',
    );
    await page.click('[data-testid="append-box"] button');
    await waitForText(page, '[data-testid="event-log"] .event-row[data-type="app/note"]', 'from the inspector');
    expect((await store.read(sessionId, 0, 100)).at(-1)).toMatchObject({
      type: 'app/note',
      data: { text: 'from the inspector' },
    });

    await page.screenshot({ path: SCREENSHOT });
    expect(pageErrors).toEqual([]);
    expect(consoleErrors).toEqual([]); // e.g. a 404 for /favicon.ico
    await page.close();
  });

  it('opens a session from its snapshot: messages at once, the tail in the log; scrolling and time travel page older events in', async () => {
    // 30 turns of 100 events (94 streamed chunks each), committed straight into the store; the snapshot covers
    // turns 1..29 (seqs 0..2899), so the subscription's events are turn 30 only.
    const longId = 'demo/long';
    const turnEvents = (turn: number): ValidatedDraft[] => [
      { type: 'user/message', data: { role: 'user', content: `question ${turn}` }, surfaceOp: 'append' },
      { type: 'turn/start', data: { turn } },
      { type: 'step/start', data: { turn, step: 1 } },
      ...Array.from({ length: 94 }, (_, chunk) => ({
        type: 'assistant/chunk',
        data: { turn, step: 1, chunk: `c${chunk} ` },
      })),
      {
        type: 'assistant/message',
        data: { turn, step: 1, message: { role: 'assistant', content: `answer ${turn}` } },
        surfaceOp: 'append',
      },
      { type: 'step/end', data: { turn, step: 1 } },
      { type: 'turn/end', data: { turn, reason: { kind: 'completed' } } },
    ];
    const projector = new MessageProjector();
    let epoch = '';
    for (let turn = 1; turn <= 30; turn++) {
      const result = await store.commit({ sessionId: longId, expectedSeq: (turn - 1) * 100, events: turnEvents(turn) });
      if (result.status !== 'committed') throw new Error(`commit ${result.status}`);
      epoch = result.epoch;
      if (turn <= 29) projector.applyAll(result.events);
    }
    const state = projector.exportState();
    expect(state.length - 1).toBe(2899);
    expect(await store.snapshots.put(longId, { epoch, seq: 2899, state })).toBe('written');

    const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${hub.url}/inspect?session=${encodeURIComponent(longId)}`);
    await page.waitForSelector('[data-testid="subscription-state"].state-live', WAIT);
    await waitForText(page, '[data-testid="transcript"] .role-assistant', 'answer 30');
    await waitForText(page, '.pane h2', 'Derived messages (60)');
    await waitForText(page, '.pane h2', 'Event log (100, seqs 2900–2999)');
    expect((await transcript(page)).slice(-2)).toEqual(['user: question 30', 'assistant: answer 30']);
    const seqsInLog = () =>
      page.$$eval('[data-testid="event-log"] .event-row', (rows) =>
        rows.map((row) => Number((row as HTMLElement).dataset['seq'])),
      );
    expect(Math.min(...(await seqsInLog()))).toBeGreaterThanOrEqual(2900);

    // Scrolling to the top of the log pages the 500 events before it in, and the rows in view stay in view.
    await page.$eval('[data-testid="event-log"]', (element) => element.scrollTo({ top: 0 }));
    await waitForText(page, '.pane h2', 'Event log (600, seqs 2400–2999)');
    await page.waitForSelector('[data-testid="event-log"] .event-row[data-seq="2899"]', WAIT);
    expect((await seqsInLog()).includes(2400)).toBe(false);

    // Time travel below the snapshot reads the rest from seq 0 and derives the messages as of that seq.
    await page.$eval('[data-testid="time-travel"]', (input) => {
      (input as HTMLInputElement).value = '99';
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForFunction(
      () => document.querySelector('[data-testid="travel-at"]')?.textContent === 'as of seq 99',
      undefined,
      WAIT,
    );
    expect(await transcript(page)).toEqual(['user: question 1', 'assistant: answer 1']);
    await waitForText(page, '.pane h2', 'Event log (100)');
    await page.click('text=back to live');
    await waitForText(page, '.pane h2', 'Event log (3000)');
    await waitForText(page, '.pane h2', 'Derived messages (60)');
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('lists sessions with their head seq, filtered by prefix', async () => {
    await client.append('other/one', [{ type: 'app/note', data: {} }]);
    const page = await browser.newPage();
    await page.goto(`${hub.url}/inspect`);
    await page.waitForSelector(`tr[data-session="${sessionId}"]`, WAIT);
    await page.fill('[data-testid="prefix"]', 'other/');
    await page.waitForFunction(
      () => document.querySelector('tr[data-session="demo/calculator"]') === null,
      undefined,
      WAIT,
    );
    expect(
      await page.$$eval('tr[data-session]', (rows) => rows.map((row) => (row as HTMLElement).dataset['session'])),
    ).toEqual(['other/one']);
    expect(await page.textContent('tr[data-session="other/one"] td:nth-child(2)')).toBe('0');
    expect(await page.textContent('tr[data-session="other/one"] td:nth-child(3)')).toBe('0');
    expect(await page.$('[data-testid="no-sessions"]')).toBeNull();
    await page.fill('[data-testid="prefix"]', 'nobody/');
    await waitForText(page, '[data-testid="no-sessions"]', 'No session id starts with "nobody/".');
    expect(await page.$$('tr[data-session]')).toEqual([]);
    await page.close();
  });

  it('shows titles and labels in the list, filters by label, and edits them in the session view', async () => {
    await client.append('meta/one', [{ type: 'app/note', data: {} }]);
    await client.setMetadata('meta/one', { title: 'First draft', labels: { team: 'red' } });
    const page = await browser.newPage();
    await page.goto(`${hub.url}/inspect`);
    await page.fill('[data-testid="label-filter"]', 'team=red');
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('tr[data-session]')].map((row) => row.getAttribute('data-session')).join() ===
        'meta/one',
      undefined,
      WAIT,
    );
    expect(await page.textContent('tr[data-session="meta/one"] [data-testid="title"]')).toBe('First draft');
    expect(await page.textContent('tr[data-session="meta/one"] [data-testid="labels"]')).toBe('team=red');
    await page.goto(`${hub.url}/inspect?session=meta/one`);
    await waitForText(page, '[data-testid="session-title"]', 'First draft');
    await page.click('[data-testid="edit-metadata"]');
    await page.fill('[data-testid="title-input"]', 'Final');
    await page.fill('[data-testid="labels-input"]', 'env=prod');
    await page.click('[data-testid="metadata-form"] button[type="submit"]');
    await waitForText(page, '[data-testid="session-title"]', 'Final');
    await waitForText(page, '[data-testid="session-labels"]', 'env=prod');
    const stored = await store.metadata.get('meta/one');
    expect(stored).toMatchObject({ title: 'Final', labels: { env: 'prod' } });
    expect(stored?.labels['team']).toBeUndefined();
    await page.close();
  });

  it('is not served by `session-hub serve --no-inspector`', async () => {
    const node = await HubProcess.start(['--no-inspector']);
    try {
      expect((await fetch(`${node.url}/inspect`)).status).toBe(404);
      expect((await fetch(`${node.url}/healthz`)).status).toBe(200);
    } finally {
      await node.terminate();
    }
  });

  it('is not served when turned off', async () => {
    const off = await startHub({ store, inspector: false });
    try {
      expect((await fetch(`${off.url}/inspect`)).status).toBe(404);
      expect((await fetch(`${off.url}/healthz`)).status).toBe(200);
    } finally {
      await off.close();
    }
  });
});

describe('the web inspector on a hub that requires tokens (Redis engine)', () => {
  const it = secureTest;
  let secure: SecureHub;
  let browser: Browser;

  it.beforeAll(async ({ secureHub }) => {
    secure = secureHub;
    await secure.store.commit({
      sessionId: 'acme/s1',
      expectedSeq: 0,
      events: [{ type: 'user/message', data: { role: 'user', content: 'hello tokens' }, surfaceOp: 'append' }],
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('without a token says so clearly', async () => {
    const page = await browser.newPage();
    await page.goto(`${secure.hub.url}/inspect?session=acme/s1`);
    await page.waitForSelector('[data-testid="error"]', WAIT);
    expect(await page.textContent('[data-testid="error"]')).toMatch(/UNAUTHORIZED|token/i);
    expect(await page.$('[data-testid="append-box"]')).toBeNull();
    await page.close();
  });

  it('with a read token shows the session without append controls, and keeps the token out of the URL', async () => {
    const token = await secure.mint({ read: ['acme/*'] });
    const page = await browser.newPage();
    await page.goto(`${secure.hub.url}/inspect?session=acme/s1&token=${token}`);
    await waitForText(page, '[data-testid="transcript"] .role-user', 'hello tokens');
    expect(page.url()).not.toContain('token=');
    expect(await page.$('[data-testid="append-box"]')).toBeNull();
    await page.close();
  });

  it('with an append token offers append controls', async () => {
    const token = await secure.mint({ read: ['acme/*'], append: ['acme/s1'] });
    const page = await browser.newPage();
    await page.goto(`${secure.hub.url}/inspect?session=acme/s1&token=${token}`);
    await waitForText(page, '[data-testid="transcript"] .role-user', 'hello tokens');
    expect(await page.$('[data-testid="append-box"]')).not.toBeNull();
    await page.close();
  });
});
