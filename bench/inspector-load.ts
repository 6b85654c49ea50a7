/**
 * `node --import tsx bench/inspector-load.ts [events]`: time-to-interactive of the web inspector on a long session,
 * next to a baseline measured in the same run: the Node SDK subscribing to the same session until live (what the
 * page must at least do). Prints both and the load average; asserts nothing.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { launchChromium } from '../test/helpers/chromium.ts';
import { HubClient } from '../client/index.ts';
import { createHub } from '../server/hub.ts';
import { MemoryStore } from '../server/store/memory/memory-store.ts';

const EVENTS = Number(process.argv[2] ?? 100_000);
const SESSION = 'bench/inspector';

const store = new MemoryStore();
const hub = createHub({ store, port: 0, logLevel: 'silent' });
const address = await hub.listen();

// One turn per 10 events: user message, a step with 4 chunks, the assistant message, step end, turn end.
const writer = new HubClient({ url: address.wsUrl });
let turn = 0;
while ((await store.head(SESSION)).headSeq + 1 < EVENTS) {
  turn += 1;
  const base = (await store.head(SESSION)).headSeq + 1;
  const chunk = (text: string) => ({
    type: 'assistant/chunk' as const,
    data: { turn, step: 1, chunk: { type: 'text-delta', text } },
  });
  await writer.append(SESSION, [
    { type: 'turn/start', data: { turn } },
    { type: 'user/message', data: { role: 'user', content: `question ${turn}` }, surfaceOp: 'append' },
    { type: 'step/start', data: { turn, step: 1 } },
    chunk('The '),
    chunk('answer '),
    chunk('is '),
    chunk(`${turn}.`),
    {
      type: 'assistant/message',
      data: { turn, step: 1, message: { role: 'assistant', content: `The answer is ${turn}.` } },
      surfaceOp: 'append',
      sourceEventSeqs: [base + 3, base + 4, base + 5, base + 6],
    },
    { type: 'step/end', data: { turn, step: 1 } },
    { type: 'turn/end', data: { turn, reason: { kind: 'completed' } } },
  ]);
}
writer.close();
const headSeq = (await store.head(SESSION)).headSeq;

const sdkStart = performance.now();
const reader = new HubClient({ url: address.wsUrl });
const subscription = reader.subscribe(SESSION);
await new Promise<void>((resolve) => subscription.once('live', () => resolve()));
const sdkMs = performance.now() - sdkStart;
reader.close();

const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
await page.goto(`${address.url}/inspect`); // the first load bundles the assets in a checkout: not timed
const pageStart = performance.now();
await page.goto(`${address.url}/inspect?session=${encodeURIComponent(SESSION)}`);
await page.waitForSelector('[data-testid="subscription-state"].state-live', { timeout: 600_000 });
await page.waitForFunction(
  (seq) => document.querySelector(`[data-testid="event-log"] [data-seq="${seq}"]`) !== null,
  headSeq,
);
const pageMs = performance.now() - pageStart;
const scrollStart = performance.now();
await page.$eval('[data-testid="event-log"]', (element) => element.scrollTo({ top: element.scrollHeight / 2 }));
await page.waitForFunction(() => document.querySelectorAll('[data-testid="event-log"] .event-row').length > 0);
await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
const scrollMs = performance.now() - scrollStart;
const rows = await page.$$eval('[data-testid="event-log"] .event-row', (list) => list.length);
await browser.close();
await hub.close();
await store.close();

const load = loadavg()
  .map((value) => value.toFixed(2))
  .join(' ');
console.log(`inspector on ${headSeq + 1} events (load average ${load})`);
console.log(`  SDK subscribe -> live (baseline): ${sdkMs.toFixed(0)} ms`);
console.log(
  `  inspector page -> live, last event shown: ${pageMs.toFixed(0)} ms (${(pageMs / sdkMs).toFixed(2)}x baseline)`,
);
console.log(`  scroll to the middle of the log and render: ${scrollMs.toFixed(0)} ms; ${rows} rows in the DOM`);
