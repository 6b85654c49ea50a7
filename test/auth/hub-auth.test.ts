import { describe, expect, it } from 'vitest';
import { createAuthenticator, createHubAuth, openAuthenticator, secretKey } from '../../server/auth/index.ts';
import { HubError } from '../../server/hub-error.ts';
import { hs256Issuer } from '../helpers/tokens.ts';

const request = { transport: 'ws', headers: {}, url: '/v1/ws', remoteAddress: '127.0.0.1' } as const;

async function refusal(action: () => unknown): Promise<HubError> {
  try {
    await action();
  } catch (error) {
    if (error instanceof HubError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('createHubAuth: the hub seam backed by the JWT authenticator', () => {
  it('turns auth failures into HubErrors with the same code and details.reason', async () => {
    const issuer = hs256Issuer();
    const auth = createHubAuth(createAuthenticator({ key: secretKey(issuer.secret!) }));
    expect(await refusal(() => auth.authenticate(undefined, request))).toMatchObject({
      code: 'UNAUTHORIZED',
      details: { reason: 'missing-token' },
    });
    const expired = await issuer.sign({ sh: {} }, { now: Date.now() - 3_600_000, expiresIn: 10 });
    expect(await refusal(() => auth.authenticate(expired, request))).toMatchObject({
      code: 'TOKEN_EXPIRED',
      details: { reason: 'expired', claim: 'exp' },
    });
  });

  it('authorize checks the grants and the token expiry (against the injected clock)', async () => {
    const issuer = hs256Issuer();
    let now = Date.now();
    const authenticator = createAuthenticator({ key: secretKey(issuer.secret!), clockToleranceSeconds: 0 });
    const auth = createHubAuth(authenticator, () => now);
    const principal = await auth.authenticate(
      await issuer.sign({ sub: 'w', sh: { read: ['a/*'] } }, { now, expiresIn: 60 }),
      request,
    );
    expect(principal).toMatchObject({ subject: 'w', expiresAt: expect.any(Number) });
    expect(await auth.authorize(principal, 'read', 'a/1')).toBe(true);
    expect(await refusal(() => auth.authorize(principal, 'append', 'a/1'))).toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'not-granted', action: 'append' },
    });
    now += 61_000;
    expect(await refusal(() => auth.authorize(principal, 'read', 'a/1'))).toMatchObject({ code: 'TOKEN_EXPIRED' });
  });

  it('open mode: everyone is allowed everything; a principal from elsewhere is refused', async () => {
    const auth = createHubAuth(openAuthenticator());
    const principal = await auth.authenticate(undefined, request);
    expect(principal.subject).toBe('anonymous');
    expect(await auth.authorize(principal, 'admin', 'any/thing')).toBe(true);
    expect(await refusal(() => auth.authorize({ subject: 'forged' }, 'read', 'x'))).toMatchObject({
      code: 'UNAUTHORIZED',
    });
  });
});
