import { describe, expect } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';
import { secureTest, type SecureHub } from './secure-hub.ts';

const it = secureTest.extend('authOptions', { scope: 'file' }, { clockToleranceSeconds: 0 });

describe('the SDK keeps a subscription alive past token expiry by refreshing over the socket', () => {
  let secure: SecureHub;
  it.beforeAll(({ secureHub }) => {
    secure = secureHub;
  });

  it('a client with a token function and a refresh interval outlives its 3-second tokens', async () => {
    const grants = { read: ['sdk/*'], append: ['sdk/*'] };
    let minted = 0;
    const client = new HubClient({
      url: secure.hub.wsUrl,
      token: () => {
        minted++;
        return secure.mint(grants, { expiresIn: 3 });
      },
      tokenRefreshIntervalMs: 300,
    });
    const errors: string[] = [];
    client.on('error', (error) => errors.push(error.code));
    const subscription = client.subscribe('sdk/live');
    const received: number[] = [];
    subscription.on('event', (event) => received.push(event.seq));
    await new Promise<void>((resolve) => subscription.on('live', () => resolve()));

    // A witness whose token is minted after the SDK's first one and never refreshed: once the witness is told its
    // token expired, the SDK's first token has expired too.
    const witness = await RawHubClient.connect(secure.hub.wsUrl, {
      token: await secure.mint(grants, { expiresIn: 3 }),
    });
    await witness.request({ type: 'subscribe', sessionId: 'sdk/live' });
    await witness.waitFor((m) => m.type === 'error' && m.code === 'TOKEN_EXPIRED', { timeoutMs: 20_000 });

    await client.append('sdk/live', { type: 'test/note', data: { after: 'expiry' } });
    await new Promise<void>((resolve) => (received.length > 0 ? resolve() : subscription.on('event', () => resolve())));
    expect(received).toEqual([0]);
    expect(minted).toBeGreaterThan(2);
    expect(errors).toEqual([]);
    await witness.close();
    client.close();
  });
});
