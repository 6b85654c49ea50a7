import { describe, expect, it } from 'vitest';
import {
  can,
  createAuthenticator,
  jwksKey,
  openAuthenticator,
  OPEN_PRINCIPAL,
  publicKeyFromPem,
  secretKey,
} from '../../server/auth/index.ts';
import { asymmetricIssuer, hs256Issuer } from '../helpers/tokens.ts';

const claims = { sub: 'agent-7', sh: { read: ['acme/*'], append: ['acme/agent-7'] } };

describe('createAuthenticator accepts valid tokens', () => {
  it('HS256 with the shared secret: subject, grants and expiry come from the claims', async () => {
    const issuer = hs256Issuer();
    const now = Date.now();
    const auth = createAuthenticator({ key: secretKey(issuer.secret!), clockToleranceSeconds: 5, now: () => now });
    const principal = await auth.verify(await issuer.sign(claims, { now, expiresIn: 600 }));
    expect(principal.subject).toBe('agent-7');
    expect(principal.open).toBe(false);
    expect(principal.expiresAt).toBe((Math.floor(now / 1000) + 600 + 5) * 1000);
    expect(can(principal.grants, 'read', 'acme/s-1')).toBe(true);
    expect(can(principal.grants, 'append', 'acme/s-1')).toBe(false);
  });

  it.each(['RS256', 'ES256'] as const)('%s with a PEM SPKI public key', async (alg) => {
    const issuer = await asymmetricIssuer(alg);
    const key = publicKeyFromPem(issuer.publicKeyPem!);
    expect(key.algorithms).toEqual([alg]);
    const principal = await createAuthenticator({ key }).verify(await issuer.sign(claims));
    expect(principal.grants.append).toEqual(['acme/agent-7']);
  });

  it.each(['RS256', 'ES256'] as const)('%s with a JWKS (key picked by kid)', async (alg) => {
    const issuer = await asymmetricIssuer(alg, 'k1');
    const other = await asymmetricIssuer(alg, 'k2');
    const key = jwksKey({ keys: [...other.jwks!.keys, ...issuer.jwks!.keys] });
    const auth = createAuthenticator({ key });
    expect((await auth.verify(await issuer.sign(claims))).subject).toBe('agent-7');
    expect((await auth.verify(await other.sign({ sh: {} }))).grants.read).toEqual([]);
  });

  it('a JWKS with RSA and EC keys accepts both algorithms', async () => {
    const rsa = await asymmetricIssuer('RS256', 'r');
    const ec = await asymmetricIssuer('ES256', 'e');
    const key = jwksKey({ keys: [...rsa.jwks!.keys, ...ec.jwks!.keys] });
    expect([...key.algorithms].sort()).toEqual(['ES256', 'RS256']);
    const auth = createAuthenticator({ key });
    await expect(auth.verify(await rsa.sign(claims))).resolves.toMatchObject({ subject: 'agent-7' });
    await expect(auth.verify(await ec.sign(claims))).resolves.toMatchObject({ subject: 'agent-7' });
  });

  it('issuer and audience are checked when configured', async () => {
    const issuer = hs256Issuer();
    const auth = createAuthenticator({ key: secretKey(issuer.secret!), issuer: 'https://id.acme', audience: 'hub' });
    const token = await issuer.sign({ ...claims, iss: 'https://id.acme', aud: ['hub', 'other'] });
    await expect(auth.verify(token)).resolves.toMatchObject({ subject: 'agent-7' });
  });

  it('a token within the clock tolerance after exp is still accepted', async () => {
    const issuer = hs256Issuer();
    const signedAt = Date.now();
    const auth = createAuthenticator({
      key: secretKey(issuer.secret!),
      clockToleranceSeconds: 30,
      now: () => signedAt + 70_000,
    });
    await expect(auth.verify(await issuer.sign(claims, { now: signedAt, expiresIn: 60 }))).resolves.toBeDefined();
  });

  it('requireExpiry: false accepts a token without exp (never expires)', async () => {
    const issuer = hs256Issuer();
    const auth = createAuthenticator({ key: secretKey(issuer.secret!), requireExpiry: false });
    const principal = await auth.verify(await issuer.sign(claims, { expiresIn: null }));
    expect(principal.expiresAt).toBeUndefined();
  });

  it('authenticate(token) verifies; open mode gives everyone OPEN_PRINCIPAL and ignores tokens', async () => {
    const issuer = hs256Issuer();
    const auth = createAuthenticator({ key: secretKey(issuer.secret!) });
    expect(auth.mode).toBe('token');
    await expect(auth.authenticate(await issuer.sign(claims))).resolves.toMatchObject({ subject: 'agent-7' });
    const open = openAuthenticator();
    expect(open.mode).toBe('open');
    await expect(open.authenticate(undefined)).resolves.toBe(OPEN_PRINCIPAL);
    await expect(open.verify('garbage')).resolves.toBe(OPEN_PRINCIPAL);
    expect(can(OPEN_PRINCIPAL.grants, 'append', 'any/session')).toBe(true);
  });
});
