// eraseSession and eraseSubject (the SDK's admin calls): over the hub's HTTP API with a token; refusals keep the hub's code.
import { describe, expect, vi } from 'vitest';
import { eraseSession, eraseSubject, HubClientError } from '../../client/index.ts';
import { NO_EPOCH } from '../../server/store/event-store.ts';
import { test } from '../helpers/fixtures.ts';
import { secureTest } from '../security/secure-hub.ts';

const WAIT = { timeout: 10_000, interval: 20 };

describe('eraseSession / eraseSubject', () => {
  test('erases a session the client watches (its subscription is reset) and a subject, page by page', async ({
    memoryHubClient,
  }) => {
    const { client, store, node } = memoryHubClient;
    const hub = { url: node.wsUrl };
    await client.append('c/1', [{ type: 'app/note', data: { n: 1 } }]);
    const subscription = client.subscribe('c/1');
    const resets: string[] = [];
    subscription.on('reset', () => resets.push('reset'));
    await vi.waitFor(() => expect(subscription.events.map((event) => event.seq)).toEqual([0]), WAIT);
    const erased = await eraseSession(hub, 'c/1', 'ticket 7');
    expect(erased).toMatchObject({ sessionId: 'c/1', erased: true, events: 1, headSeq: 0, metadata: true });
    expect(await store.head('c/1')).toEqual({ epoch: NO_EPOCH, headSeq: -1 });
    await vi.waitFor(() => expect(resets.length).toBeGreaterThan(0), WAIT);
    expect(subscription.events).toEqual([]);
    subscription.close();

    for (const id of ['c/2', 'c/3', 'c/4']) {
      await client.append(id, [{ type: 'app/note', data: { id } }]);
      await store.metadata.patch(id, { labels: { userId: id === 'c/4' ? 'other' : 'u-9' } });
    }
    const dry = await eraseSubject(hub, { match: { label: 'userId=u-9' }, dryRun: true, limit: 1 });
    expect(dry).toMatchObject({ dryRun: true, sessions: ['c/2'], next: 'c/2' });
    const real = await eraseSubject(hub, { match: { label: 'userId=u-9' }, dryRun: false, reason: 'r' });
    expect(real.sessions).toEqual(['c/2', 'c/3']);
    expect((await store.head('c/4')).headSeq).toBe(0);
    const refused = await eraseSubject(hub, { match: {}, dryRun: true }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HubClientError);
    expect(refused).toMatchObject({ code: 'BAD_REQUEST' });
  });
});

describe('eraseSession with tokens', () => {
  secureTest('is refused with FORBIDDEN without the redact grant, and nothing changes', async ({ secureHub }) => {
    const result = await secureHub.store.commit({
      sessionId: 'acme/kept',
      expectedSeq: 0,
      events: [{ type: 'app/note', data: {} }],
    });
    expect(result.status).toBe('committed');
    const token = await secureHub.mint({ read: ['acme/*'], append: ['acme/*'] });
    const url = secureHub.hub.wsUrl;
    const refused = await eraseSession({ url, token }, 'acme/kept', 'r').catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'FORBIDDEN' });
    expect((await secureHub.store.head('acme/kept')).headSeq).toBe(0);
    const redactor = async () => secureHub.mint({ redact: ['acme/*'] }); // a token function, asked per call
    expect(await eraseSession({ url, token: redactor }, 'acme/kept', 'r')).toMatchObject({ erased: true, events: 1 });
  });
});
