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
import { fillSession } from './scenarios/join.ts';

const EVENTS = Number(process.argv[2] ?? 100_000);
const SESSION = 'bench/inspector';

const store = new MemoryStore();
const hub = createHub({ store, port: 0, logLevel: 'silent' });
const address = await hub.listen();

// A streamed-chunk session written straight into the store, with its snapshot at its last turn end (as the join
// bench builds it): the page opens from that snapshot.
await fillSession(store, SESSION, EVENTS);
const headSeq = (await store.head(SESSION)).headSeq;

const sdkStart = performance.now();
const reader = new HubClient({ url: address.wsUrl });
const subscription = reader.subscribe(SESSION, { from: 'snapshot' });
await new Promise<void>((resolve) => subscription.once('live', () => resolve()));
const sdkMs = performance.now() - sdkStart;
reader.close();

const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
await page.goto(`${address.url}/inspect`); // the first load bundles the assets in a checkout: not timed
const pageStart = performance.now();
await page.goto(`${address.url}/inspect?session=${encodeURIComponent(SESSION)}`);
await page.waitForSelector('[data-testid="subscription-state"].state-live', { timeout: 600_000 });
// Interactive: live, and the derived messages (the snapshot's) on screen.
await page.waitForFunction(() =>
  [...document.querySelectorAll('[data-testid="transcript"] .role-assistant')].some((node) =>
    node.textContent?.includes('the answer to question'),
  ),
);
const pageMs = performance.now() - pageStart;
const scrollStart = performance.now();
await page.click('[data-testid="load-older"]');
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
  `  inspector page -> live, messages shown: ${pageMs.toFixed(0)} ms (${(pageMs / sdkMs).toFixed(2)}x baseline)`,
);
console.log(
  `  page in the 500 events before the snapshot and render: ${scrollMs.toFixed(0)} ms; ${rows} rows in the DOM`,
);
