import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloseCode } from '../../shared/protocol.ts';
import type { HubAuth } from '../../server/auth/auth-seam.ts';
import { HubError } from '../../server/hub-error.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

/** A toy auth hook: token "alice" may read everything and append to alice/*; "expired" is refused. */
const auth: HubAuth = {
  authenticate(token) {
    if (token === undefined) throw new HubError('UNAUTHORIZED', 'a token is required');
    if (token === 'expired') throw new HubError('TOKEN_EXPIRED', 'the token expired');
    return { subject: token };
  },
  authorize(principal, action, sessionId) {
    if (action === 'read') return true;
    return action === 'append' && sessionId.startsWith(`${principal.subject}/`);
  },
};

describe('hub: the auth seam', () => {
  let hub: TestHub;
  const store = new MemoryStore();
  beforeAll(async () => {
    hub = await startHub({ store, auth });
  });
  afterAll(async () => {
    await hub.close();
    await store.close();
  });

  it('refuses a hello without a token with UNAUTHORIZED and close 1008', async () => {
    const client = await RawHubClient.connect(hub.wsUrl, { hello: false });
    expect(await client.request({ type: 'hello', versions: [1] })).toMatchObject({ code: 'UNAUTHORIZED' });
    expect((await client.closed).code).toBe(CloseCode.POLICY_VIOLATION);
  });

  it('takes the token from hello or the upgrade request and asks authorize before each request', async () => {
    const viaHello = await RawHubClient.connect(hub.wsUrl, { token: 'alice' });
    const viaQuery = await RawHubClient.connect(`${hub.wsUrl}?token=alice`);
    for (const client of [viaHello, viaQuery]) {
      expect(
        await client.request({ type: 'append', sessionId: 'alice/1', events: [{ type: 'x/y', data: 1 }] }),
      ).toMatchObject({ type: 'ack' });
      expect(
        await client.request({ type: 'append', sessionId: 'bob/1', events: [{ type: 'x/y', data: 1 }] }),
      ).toMatchObject({ type: 'error', code: 'FORBIDDEN', sessionId: 'bob/1' });
      expect(await client.request({ type: 'subscribe', sessionId: 'bob/1' })).toMatchObject({ type: 'subscribed' });
      await client.close();
    }
    expect((await store.head('bob/1')).headSeq).toBe(-1);
  });

  it('replaces the credentials with auth, and keeps the connection when a new token is refused', async () => {
    const client = await RawHubClient.connect(hub.wsUrl, { token: 'alice' });
    expect(await client.request({ type: 'auth', token: 'bob' })).toEqual({ type: 'authenticated', id: 2 });
    expect(
      await client.request({ type: 'append', sessionId: 'bob/2', events: [{ type: 'x/y', data: 1 }] }),
    ).toMatchObject({ type: 'ack' });
    expect(await client.request({ type: 'auth', token: 'expired' })).toMatchObject({ code: 'TOKEN_EXPIRED' });
    expect(await client.request({ type: 'ping' })).toMatchObject({ type: 'pong' });
    await client.close();
  });

  it('applies the same hooks to HTTP requests', async () => {
    expect((await fetch(`${hub.url}/v1/sessions/alice%2F1`)).status).toBe(401);
    const read = await fetch(`${hub.url}/v1/sessions/alice%2F1`, { headers: { authorization: 'Bearer alice' } });
    expect(await read.json()).toMatchObject({ sessionId: 'alice/1', headSeq: 1 });
    const denied = await fetch(`${hub.url}/v1/sessions/carol%2F1/events?token=alice`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ events: [{ type: 'x/y', data: 1 }] }),
    });
    expect(denied.status).toBe(403);
    expect((await fetch(`${hub.url}/v1/sessions?token=alice`)).status).toBe(403);
    expect((await fetch(`${hub.url}/healthz`)).status).toBe(200);
  });

  it('keeps pipelined appends in request order when authorize answers out of order', async () => {
    // Every authorize waits at a gate; once all ten are waiting, the gates open in reverse order.
    const gates: (() => void)[] = [];
    let allWaiting = (): void => undefined;
    const waiting = new Promise<void>((resolve) => (allWaiting = resolve));
    const slowFirst: HubAuth = {
      authenticate: () => ({ subject: 'anyone' }),
      authorize: () =>
        new Promise<boolean>((resolve) => {
          gates.push(() => resolve(true));
          if (gates.length === 10) allWaiting();
        }),
    };
    const ordered = await startHub({ store, auth: slowFirst });
    const client = await RawHubClient.connect(ordered.wsUrl);
    const pending = Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        client.request({ type: 'append', sessionId: 'ordered', events: [{ type: 'x/y', data: n }] }),
      ),
    );
    await waiting;
    for (const open of [...gates].reverse()) open();
    const replies = await pending;
    expect(replies.map((reply) => reply.type === 'ack' && reply.firstSeq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const stored = await store.read('ordered', 0, 20);
    expect(stored.map((event) => event.data)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await client.close();
    await ordered.close();
  });

  it('answers an authorize hook that throws, or answers false, or async false, with an error and keeps serving', async () => {
    // Synchronous answers take a fast path (no promise per append); every shape must still end the same way.
    const answers: Record<string, () => boolean | Promise<boolean>> = {
      'sync-yes': () => true,
      'sync-no': () => false,
      'async-yes': () => Promise.resolve(true),
      'async-no': () => Promise.resolve(false),
      throws: () => {
        throw new HubError('RATE_LIMITED', 'the policy service is overloaded');
      },
    };
    const mixed: HubAuth = {
      authenticate: () => ({ subject: 'anyone' }),
      authorize: (_principal, _action, sessionId) => answers[sessionId.split('/')[1]!]!(),
    };
    const hub3 = await startHub({ store, auth: mixed });
    const client = await RawHubClient.connect(hub3.wsUrl);
    const append = (name: string) =>
      client.request({ type: 'append', sessionId: `mixed/${name}`, events: [{ type: 'x/y', data: name }] });
    const replies = await Promise.all(Object.keys(answers).map((name) => append(name)));
    expect(replies.map((reply) => (reply.type === 'error' ? reply.code : reply.type))).toEqual([
      'ack',
      'FORBIDDEN',
      'ack',
      'FORBIDDEN',
      'RATE_LIMITED',
    ]);
    for (const refused of ['sync-no', 'async-no', 'throws']) {
      expect((await store.head(`mixed/${refused}`)).headSeq).toBe(-1);
    }
    expect(await append('sync-yes')).toMatchObject({ type: 'ack', firstSeq: 1 });
    await client.close();
    await hub3.close();
  });

  it('lets an unsubscribe sent right behind a subscribe win while authorize is still thinking', async () => {
    const slow: HubAuth = {
      authenticate: () => ({ subject: 'anyone' }),
      authorize: () => gate,
    };
    let open = (): void => undefined;
    const gate = new Promise<boolean>((resolve) => (open = () => resolve(true)));
    const hub2 = await startHub({ store, auth: slow });
    const client = await RawHubClient.connect(hub2.wsUrl);
    // authorize answers only after the unsubscribe was answered.
    const subscribing = client.request({ type: 'subscribe', sessionId: 'quick' });
    const unsubscribed = await client.request({ type: 'unsubscribe', sessionId: 'quick' });
    open();
    const subscribed = await subscribing;
    expect(unsubscribed).toMatchObject({ type: 'unsubscribed', sessionId: 'quick' });
    expect(subscribed).toMatchObject({ type: 'error', code: 'NOT_SUBSCRIBED', sessionId: 'quick' });
    expect((await hub2.hub.metrics.subscriptions.get()).values[0]?.value).toBe(0);
    expect((await hub2.hub.metrics.watchedSessions.get()).values[0]?.value ?? 0).toBe(0);
    await client.close();
    await hub2.close();
  });
});
