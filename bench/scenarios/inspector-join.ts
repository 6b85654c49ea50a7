import { performance } from 'node:perf_hooks';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../test/helpers/chromium.ts';
import { createHub, RedisStore } from '../../server/index.ts';
import { atMost, type Row } from '../report.ts';
import type { BenchContext } from '../targets.ts';
import { fillSession } from './join.ts';

const SIZES = { quick: [1000, 100_000], full: [1000, 1_000_000] };
const ROUNDS = { quick: 2, full: 3 };

export interface InspectorJoinResult {
  readonly events: number;
  /** Each round's time from navigating to the inspector on the session until it is live with the messages shown. */
  readonly ttiMs: readonly number[];
  /** Each round's times in the page (where the time went). */
  readonly pages: readonly PageTimes[];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 === 1 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Where one page load's time went, in the page's own clock (ms after navigation started). */
export interface PageTimes {
  readonly ttiMs: number;
  /** The document and its scripts loaded (`loadEventEnd`): the page's own start, before it subscribes. */
  readonly loadedMs: number;
  /** The page saw its subscription live with the messages shown (`performance.now()` at that moment). */
  readonly interactiveMs: number;
}

/** One page load of the inspector on `sessionId` in a fresh page: ms until live, with the derived messages shown. */
async function timeToInteractive(browser: Browser, url: string, sessionId: string): Promise<PageTimes> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    const start = performance.now();
    await page.goto(`${url}/inspect?session=${encodeURIComponent(sessionId)}`);
    await page.waitForSelector('[data-testid="subscription-state"].state-live', { timeout: 600_000 });
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('[data-testid="transcript"] .role-assistant')].some((node) =>
          node.textContent?.includes('the answer to question'),
        ),
      undefined,
      { timeout: 600_000 },
    );
    const ttiMs = performance.now() - start;
    // Evaluated in the page (its DOM types are not this file's).
    const inPage = (await page.evaluate(
      `({ loadedMs: performance.getEntriesByType('navigation')[0].loadEventEnd, interactiveMs: performance.now() })`,
    )) as Omit<PageTimes, 'ttiMs'>;
    return { ttiMs, ...inPage };
  } finally {
    await page.close();
  }
}

/**
 * Scenario: the web inspector's time-to-interactive in Chromium on a streamed-chunk session of 1,000,000 events
 * (100,000 with --quick) against one of 1,000 events with the same messages, both with their snapshot at the last
 * turn end (as the hub's builder leaves them), in interleaved rounds on one in-process hub on the bench Redis.
 * Interactive: the page is live and shows the derived messages. Target: ≤ 1 s on the long session.
 */
export async function runInspectorJoin(
  context: BenchContext,
  log: (line: string) => void,
): Promise<{ rows: Row[]; raw: { sizes: InspectorJoinResult[] } }> {
  const store = await RedisStore.open({ url: context.redisUrl });
  const hubStore = await RedisStore.open({ url: context.redisUrl });
  const hub = createHub({ store: hubStore, port: 0, logLevel: 'silent' });
  let browser: Browser | undefined;
  try {
    const { url } = await hub.listen();
    const sessions: { sessionId: string; events: number }[] = [];
    for (const size of context.quick ? SIZES.quick : SIZES.full) {
      const sessionId = `bench-inspector-${size}-${Date.now()}`;
      const started = performance.now();
      const events = await fillSession(store, sessionId, size);
      log(`inspector: wrote ${events.toLocaleString('en-US')} events in ${Math.round(performance.now() - started)} ms`);
      sessions.push({ sessionId, events });
    }
    browser = await launchChromium();
    // The first load of the page bundles its assets in a checkout (once per hub): not timed.
    await timeToInteractive(browser, url, sessions[0]!.sessionId);
    const runs = sessions.map(() => [] as PageTimes[]);
    for (let round = 0; round < (context.quick ? ROUNDS.quick : ROUNDS.full); round++) {
      for (const [index, session] of sessions.entries()) {
        runs[index]!.push(await timeToInteractive(browser, url, session.sessionId));
      }
    }
    const sizes = sessions.map((session, index) => ({
      events: session.events,
      ttiMs: runs[index]!.map((run) => run.ttiMs),
      pages: runs[index]!,
    }));
    for (const size of sizes) {
      const each = size.pages.map(
        (run) =>
          `${run.ttiMs.toFixed(0)} (page loaded at ${run.loadedMs.toFixed(0)}, ` +
          `live with messages at ${run.interactiveMs.toFixed(0)})`,
      );
      log(`inspector ${size.events.toLocaleString('en-US')} events: time to interactive, ms: ${each.join(' / ')}`);
    }
    return { rows: inspectorJoinRows(sizes), raw: { sizes } };
  } finally {
    await browser?.close();
    await hub.close();
    await hubStore.close();
    await store.close();
  }
}

/** Table rows of the inspector scenario (pure): the long session's time to interactive against the short one's. */
export function inspectorJoinRows(sizes: readonly InspectorJoinResult[]): Row[] {
  const short = sizes[0];
  const long = sizes.at(-1);
  if (short === undefined || long === undefined || long.ttiMs.length === 0) return [];
  const tti = median(long.ttiMs);
  return [
    {
      scenario: `inspector from snapshot, ${long.events.toLocaleString('en-US')} events (Chromium)`,
      metric: `time to interactive (median of ${long.ttiMs.length})`,
      unit: 'ms',
      hub: tti,
      baselineName: `same messages, ${short.events.toLocaleString('en-US')} events`,
      baseline: median(short.ttiMs),
      target: '≤ 1,000 ms',
      met: atMost(tti, 1000),
    },
  ];
}
