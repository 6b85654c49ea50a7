import { afterAll, describe, expect } from 'vitest';
import { RawHubClient } from '../helpers/raw-hub-client.ts';
import { secureTest, type SecureHub } from './secure-hub.ts';

const note = (n: number) => ({ type: 'test/note', data: { n } });
const it = secureTest.extend('authOptions', { scope: 'file' }, { clockToleranceSeconds: 0 });

describe('token expiry on open connections, and refresh with auth', () => {
  let secure: SecureHub;
  let writer: RawHubClient;

  it.beforeAll(async ({ secureHub }) => {
    secure = secureHub;
    writer = await RawHubClient.connect(secure.hub.wsUrl, { token: await secure.mint({ append: ['*'] }) });
  });
  afterAll(async () => {
    await writer.close();
  });

  const append = async (sessionId: string, n: number) =>
    expect(await writer.request({ type: 'append', sessionId, events: [note(n)] })).toMatchObject({ type: 'ack' });

  it('ends every subscription with TOKEN_EXPIRED when the token expires, unless refreshed in time', async () => {
    const grants = { read: ['exp/*'], append: ['exp/*'] };
    const shortLived = await secure.mint(grants, { expiresIn: 2 });
    const lapsing = await RawHubClient.connect(secure.hub.wsUrl, { token: shortLived });
    const refreshing = await RawHubClient.connect(secure.hub.wsUrl, { token: shortLived });
    for (const client of [lapsing, refreshing]) {
      for (const sessionId of ['exp/a', 'exp/b']) {
        expect(await client.request({ type: 'subscribe', sessionId })).toMatchObject({ type: 'subscribed' });
      }
    }
    expect(await refreshing.request({ type: 'auth', token: await secure.mint(grants) })).toMatchObject({
      type: 'authenticated',
    });

    // Both tokens had the same exp: once the lapsing connection is told, the refreshed one has outlived it.
    for (const sessionId of ['exp/a', 'exp/b']) {
      expect(
        await lapsing.waitFor((m) => m.type === 'error' && m.sessionId === sessionId, { timeoutMs: 20_000 }),
      ).toMatchObject({ code: 'TOKEN_EXPIRED', details: { reason: 'expired' } });
    }
    expect(await lapsing.request({ type: 'append', sessionId: 'exp/a', events: [note(0)] })).toMatchObject({
      code: 'TOKEN_EXPIRED',
    });
    expect(await lapsing.request({ type: 'subscribe', sessionId: 'exp/a' })).toMatchObject({ code: 'TOKEN_EXPIRED' });

    await append('exp/a', 1);
    await refreshing.waitFor((m) => m.type === 'events' && m.sessionId === 'exp/a');
    expect(refreshing.seqs('exp/a')).toEqual([0]);
    expect(refreshing.ofType('error')).toEqual([]);
    expect(lapsing.seqs('exp/a')).toEqual([]);

    // The lapsed connection recovers with a fresh token and resubscribes from where it was.
    expect(await lapsing.request({ type: 'auth', token: await secure.mint(grants) })).toMatchObject({
      type: 'authenticated',
    });
    const from = lapsing.messages.length;
    expect(await lapsing.request({ type: 'subscribe', sessionId: 'exp/a' })).toMatchObject({ type: 'subscribed' });
    await lapsing.waitFor((m) => m.type === 'live' && m.sessionId === 'exp/a', { from });
    expect(lapsing.seqs('exp/a')).toEqual([0]);
    await Promise.all([lapsing.close(), refreshing.close()]);
  });

  it('a refresh with narrower grants ends the subscriptions it no longer covers with FORBIDDEN', async () => {
    const client = await RawHubClient.connect(secure.hub.wsUrl, { token: await secure.mint({ read: ['n/*'] }) });
    for (const sessionId of ['n/keep', 'n/drop']) await client.request({ type: 'subscribe', sessionId });
    expect(await client.request({ type: 'auth', token: await secure.mint({ read: ['n/keep'] }) })).toMatchObject({
      type: 'authenticated',
    });
    expect(await client.waitFor((m) => m.type === 'error' && m.sessionId === 'n/drop')).toMatchObject({
      code: 'FORBIDDEN',
    });
    await append('n/drop', 0);
    await append('n/keep', 0);
    await client.waitFor((m) => m.type === 'events' && m.sessionId === 'n/keep');
    expect(client.seqs('n/drop')).toEqual([]);
    expect(await client.request({ type: 'unsubscribe', sessionId: 'n/drop' })).toMatchObject({
      code: 'NOT_SUBSCRIBED',
    });
    await client.close();
  });

  it('a refused refresh keeps the current token and subscriptions', async () => {
    const client = await RawHubClient.connect(secure.hub.wsUrl, { token: await secure.mint({ read: ['r/*'] }) });
    await client.request({ type: 'subscribe', sessionId: 'r/1' });
    const forged = await (await import('../helpers/tokens.ts')).hs256Issuer().sign({ sh: { read: ['*'] } });
    expect(await client.request({ type: 'auth', token: forged })).toMatchObject({
      type: 'error',
      code: 'UNAUTHORIZED',
    });
    await append('r/1', 0);
    await client.waitFor((m) => m.type === 'events' && m.sessionId === 'r/1');
    expect(await client.request({ type: 'subscribe', sessionId: 'r/2' })).toMatchObject({ type: 'subscribed' });
    expect(await client.request({ type: 'subscribe', sessionId: 'x/1' })).toMatchObject({ code: 'FORBIDDEN' });
    await client.close();
  });
});
