import { beforeAll, describe, expect, it } from 'vitest';
import type { JWTPayload } from 'jose';
import {
  AuthError,
  createAuthenticator,
  jwksKey,
  publicKeyFromPem,
  secretKey,
  type Authenticator,
} from '../../server/auth/index.ts';
import { asymmetricIssuer, hs256Issuer, unsignedToken, type TestIssuer } from '../helpers/tokens.ts';

const grants = { sh: { read: ['*'], append: ['*'] } };

async function failure(auth: Authenticator, token: string | undefined): Promise<AuthError> {
  try {
    await auth.authenticate(token);
  } catch (error) {
    if (error instanceof AuthError) return error;
    throw error;
  }
  throw new Error('the token was accepted');
}

describe('createAuthenticator refuses bad tokens with stable codes', () => {
  let hs: TestIssuer;
  let rs: TestIssuer;
  let es: TestIssuer;
  let hsAuth: Authenticator;
  let rsAuth: Authenticator;
  let jwksAuth: Authenticator;

  beforeAll(async () => {
    hs = hs256Issuer();
    rs = await asymmetricIssuer('RS256');
    es = await asymmetricIssuer('ES256');
    hsAuth = createAuthenticator({ key: secretKey(hs.secret!), issuer: 'id', audience: 'hub' });
    rsAuth = createAuthenticator({ key: publicKeyFromPem(rs.publicKeyPem!) });
    jwksAuth = createAuthenticator({ key: jwksKey(rs.jwks) });
  });

  const ok: JWTPayload = { ...grants, iss: 'id', aud: 'hub' };

  it('no token', async () => {
    expect(await failure(hsAuth, undefined)).toMatchObject({ code: 'UNAUTHORIZED', reason: 'missing-token' });
    expect(await failure(hsAuth, '')).toMatchObject({ code: 'UNAUTHORIZED', reason: 'missing-token' });
  });

  it('alg: none', async () => {
    for (const auth of [hsAuth, rsAuth, jwksAuth]) {
      expect(await failure(auth, unsignedToken({ ...ok, exp: Date.now() / 1000 + 60 }))).toMatchObject({
        code: 'UNAUTHORIZED',
        reason: 'alg-not-allowed',
      });
    }
  });

  it('wrong algorithm: ES256 token against an RS256 key', async () => {
    const error = await failure(rsAuth, await es.sign(grants));
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', reason: 'alg-not-allowed' });
  });

  it('algorithm confusion: HS256 signed with the RSA public key as the secret', async () => {
    const forged = hs256Issuer(rs.publicKeyPem!);
    expect(await failure(rsAuth, await forged.sign(grants))).toMatchObject({ reason: 'alg-not-allowed' });
    expect(await failure(jwksAuth, await forged.sign(grants))).toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('an RS256 token against an HS256 secret', async () => {
    expect(await failure(hsAuth, await rs.sign(ok))).toMatchObject({ reason: 'alg-not-allowed' });
  });

  it('bad signature: another secret, another key pair, a tampered payload', async () => {
    expect(await failure(hsAuth, await hs256Issuer().sign(ok))).toMatchObject({
      code: 'UNAUTHORIZED',
      reason: 'bad-signature',
    });
    const otherPair = await asymmetricIssuer('RS256');
    expect(await failure(rsAuth, await otherPair.sign(grants))).toMatchObject({ reason: 'bad-signature' });
    const [header, , signature] = (await hs.sign({ ...ok, sh: { read: ['mine'] } })).split('.');
    const widened = Buffer.from(JSON.stringify({ ...ok, sh: { read: ['*'] }, exp: 9e9 })).toString('base64url');
    expect(await failure(hsAuth, `${header}.${widened}.${signature}`)).toMatchObject({ reason: 'bad-signature' });
  });

  it('a JWKS without the token kid', async () => {
    const stranger = await asymmetricIssuer('RS256', 'unknown-kid');
    expect(await failure(jwksAuth, await stranger.sign(grants))).toMatchObject({
      code: 'UNAUTHORIZED',
      reason: 'unknown-key',
    });
  });

  it('expired', async () => {
    const token = await hs.sign(ok, { now: Date.now() - 3_600_000, expiresIn: 60 });
    expect(await failure(hsAuth, token)).toMatchObject({ code: 'TOKEN_EXPIRED', reason: 'expired', claim: 'exp' });
  });

  it('not yet valid', async () => {
    const token = await hs.sign(ok, { notBefore: 600 });
    expect(await failure(hsAuth, token)).toMatchObject({ code: 'UNAUTHORIZED', reason: 'not-yet-valid', claim: 'nbf' });
  });

  it('missing claims: exp, sh, iss, aud', async () => {
    const missingExp = await hs.sign(ok, { expiresIn: null });
    expect(await failure(hsAuth, missingExp)).toMatchObject({ reason: 'missing-claim', claim: 'exp' });
    expect(await failure(hsAuth, await hs.sign({ iss: 'id', aud: 'hub' }))).toMatchObject({
      reason: 'missing-claim',
      claim: 'sh',
    });
    expect(await failure(hsAuth, await hs.sign({ ...grants, aud: 'hub' }))).toMatchObject({
      reason: 'missing-claim',
      claim: 'iss',
    });
    expect(await failure(hsAuth, await hs.sign({ ...grants, iss: 'id' }))).toMatchObject({
      reason: 'missing-claim',
      claim: 'aud',
    });
  });

  it('wrong issuer or audience', async () => {
    expect(await failure(hsAuth, await hs.sign({ ...ok, iss: 'evil' }))).toMatchObject({
      reason: 'invalid-claim',
      claim: 'iss',
    });
    expect(await failure(hsAuth, await hs.sign({ ...ok, aud: 'other' }))).toMatchObject({
      reason: 'invalid-claim',
      claim: 'aud',
    });
  });

  it('mistyped time claims', async () => {
    const token = await hs.sign({ ...ok, exp: 'tomorrow' } as unknown as JWTPayload, { expiresIn: null });
    expect(await failure(hsAuth, token)).toMatchObject({ code: 'UNAUTHORIZED', reason: 'invalid-claim' });
  });

  it('malformed grants', async () => {
    expect(await failure(hsAuth, await hs.sign({ ...ok, sh: { read: ['a*b'] } }))).toMatchObject({
      code: 'UNAUTHORIZED',
      reason: 'bad-grants',
    });
  });

  it('malformed and oversized tokens', async () => {
    for (const token of ['x', 'a.b.c', 'a.b', '....', 'e30.e30.e30', '\u0000']) {
      expect(await failure(hsAuth, token)).toMatchObject({ code: 'UNAUTHORIZED', reason: 'malformed-token' });
    }
    const huge = await hs.sign({ ...ok, pad: 'x'.repeat(10_000) });
    expect(await failure(hsAuth, huge)).toMatchObject({ reason: 'malformed-token' });
  });

  it('error messages never contain the token', async () => {
    const token = await hs256Issuer().sign(ok);
    const error = await failure(hsAuth, token);
    expect(error.message).not.toContain(token.split('.')[2]);
    expect(error.details).toEqual({ reason: 'bad-signature' });
  });
});
