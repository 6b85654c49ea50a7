import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubClient, type Subscription } from '../../client/index.ts';
import { createAuthenticator, createHubAuth, secretKey } from '../../server/auth/index.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import type { Watcher } from '../../shared/protocol.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { hs256Issuer } from '../helpers/tokens.ts';

const WAIT = { timeout: 20_000 };
const sessionId = 'acme/watched';

/** Resolves with the watchers once `subscription.presence` lists `count` of them. */
function watchersOnceThere(subscription: Subscription, count: number): Promise<readonly Watcher[]> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (subscription.presence.length !== count) return;
      subscription.off('presence', check);
      resolve(subscription.presence);
    };
    subscription.on('presence', check);
    check();
  });
}

describe('a watcher is shown by its authenticated subject; its self-chosen label is secondary', () => {
  const issuer = hs256Issuer();
  let store: MemoryStore;
  let hub: TestHub;
  let browser: Browser;
  const clients: HubClient[] = [];
  const token = (sub: string) => issuer.sign({ sub, sh: { read: ['acme/*'] } });

  beforeAll(async () => {
    store = new MemoryStore();
    const auth = createHubAuth(createAuthenticator({ key: secretKey(issuer.secret!) }));
    hub = await startHub({ store, auth, nodeName: 'node-a' });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await browser?.close();
    await hub?.close();
    await store?.close();
  });

  it('presence frames, the presence API and the inspector name mallory, not the label "alice (admin)"', async () => {
    const mallory = new HubClient({ url: hub.wsUrl, token: await token('mallory') });
    const viewer = new HubClient({ url: hub.wsUrl, token: await token('viewer') });
    clients.push(mallory, viewer);
    mallory.subscribe(sessionId, { label: 'alice (admin)' });
    const watching = viewer.subscribe(sessionId, { presence: true });

    // Frames: the subject is the token's, the label a field of its own.
    const listed = await watchersOnceThere(watching, 2);
    expect(listed.find((watcher) => watcher.label === 'alice (admin)')).toMatchObject({ subject: 'mallory' });

    // API: the same.
    const reply = await fetch(`${hub.url}/v1/sessions/${encodeURIComponent(sessionId)}/presence`, {
      headers: { authorization: `Bearer ${await token('viewer')}` },
    });
    const { watchers } = (await reply.json()) as { watchers: Watcher[] };
    expect(watchers.find((watcher) => watcher.label === 'alice (admin)')).toMatchObject({ subject: 'mallory' });

    // Inspector: subject first and set apart; the label after it, marked as the client's own.
    const page = await browser.newPage();
    await page.goto(`${hub.url}/inspect?session=${encodeURIComponent(sessionId)}&token=${await token('viewer')}`);
    await page.waitForSelector('[data-testid="watcher"][data-subject="mallory"]', WAIT);
    const shown = await page.$$eval('[data-testid="watcher"]', (nodes) =>
      nodes.map((node) => ({
        subject: node.querySelector('.subject')?.textContent,
        text: node.textContent,
        labelTitle: node.querySelector('.watcher-label')?.getAttribute('title') ?? null,
      })),
    );
    expect(shown).toContainEqual({
      subject: 'mallory',
      text: 'mallory @ node-a, label "alice (admin)"',
      labelTitle: 'chosen by the client, not verified',
    });
    expect(shown.map((watcher) => watcher.subject).sort()).toEqual(['mallory', 'viewer', 'viewer']);
    expect(await page.textContent('[data-testid="watchers"]')).not.toMatch(/\(alice \(admin\) @/);
    await page.close();
  });
});
