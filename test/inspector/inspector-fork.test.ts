import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

const WAIT = { timeout: 20_000 };

async function travelTo(page: Page, seq: number): Promise<void> {
  await page.$eval(
    '[data-testid="time-travel"]',
    (input, value) => {
      (input as HTMLInputElement).value = String(value);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    },
    seq,
  );
  await page.waitForFunction(
    (value) => document.querySelector('[data-testid="travel-at"]')?.textContent === `as of seq ${value}`,
    seq,
    WAIT,
  );
}

describe('the inspector forks a session from time travel (real Chromium, open hub)', () => {
  let store: MemoryStore;
  let hub: TestHub;
  let browser: Browser;
  let client: HubClient;

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

  it('"fork here" opens the fork; inside a turn it offers to close the turn in the fork', async () => {
    await client.append('demo/chat', [
      { type: 'user/message', data: { role: 'user', content: 'first question' } },
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } },
      { type: 'user/message', data: { role: 'user', content: 'second question' } },
      { type: 'turn/start', data: { turn: 2 } },
      { type: 'step/start', data: { turn: 2, step: 1 } },
      { type: 'tool/call', data: { turn: 2, step: 1, callId: 'c1', name: 'ls', arguments: '{}' } },
      { type: 'user/message', data: { role: 'user', content: 'third question' } },
    ]);
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${hub.url}/inspect?session=${encodeURIComponent('demo/chat')}`);
    await page.waitForSelector('[data-testid="subscription-state"].state-live', WAIT);
    expect(await page.$('[data-testid="fork-here"]')).toBeNull(); // live: nothing to fork from

    await travelTo(page, 3);
    await page.click('[data-testid="fork-here"] button');
    await page.waitForURL(/session=demo%2Ffork-/, WAIT);
    await page.waitForSelector('[data-testid="subscription-state"].state-live', WAIT);
    const forkId = new URL(page.url()).searchParams.get('session')!;
    expect(await store.forks.lineage(forkId)).toMatchObject({ lineage: { parent: 'demo/chat', forkSeq: 3 } });
    await page.waitForFunction(() => document.querySelector('[data-testid="last-seq"]')?.textContent === 'seq 3');

    await page.goto(`${hub.url}/inspect?session=${encodeURIComponent('demo/chat')}`);
    await page.waitForSelector('[data-testid="subscription-state"].state-live', WAIT);
    await travelTo(page, 6);
    await page.click('[data-testid="fork-here"] button');
    await page.waitForSelector('[data-testid="fork-result"]', WAIT);
    expect(await page.textContent('[data-testid="fork-result"]')).toMatch(/FORK_INSIDE_TURN/);
    await page.click('text=fork and close the turn');
    await page.waitForURL(/session=demo%2Ffork-/, WAIT);
    await page.waitForSelector('[data-testid="subscription-state"].state-live', WAIT);
    // The repair: the call's error result, step/end, turn/end after seq 6.
    await page.waitForFunction(() => document.querySelector('[data-testid="last-seq"]')?.textContent === 'seq 9');
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
