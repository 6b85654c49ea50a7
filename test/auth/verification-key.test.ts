import { generateKeyPair, exportJWK, exportPKCS8, exportSPKI } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  jwksKey,
  KeyConfigError,
  MIN_SECRET_BYTES,
  publicKeyFromPem,
  restrictAlgorithms,
  secretKey,
} from '../../server/auth/index.ts';
import { thrown } from '../helpers/thrown.ts';

describe('verification keys pin one algorithm family', () => {
  it('a secret is HS256 only, and must be at least 32 bytes', () => {
    expect(secretKey('x'.repeat(MIN_SECRET_BYTES)).algorithms).toEqual(['HS256']);
    expect(thrown(() => secretKey('x'.repeat(MIN_SECRET_BYTES - 1)))).toBeInstanceOf(KeyConfigError);
  });

  it('a PEM key gets its algorithm from its type; private keys and other curves are refused', async () => {
    const ec384 = await generateKeyPair('ES384', { extractable: true });
    const rsa = await generateKeyPair('RS256', { extractable: true });
    const ec384Pem = await exportSPKI(ec384.publicKey);
    expect(thrown(() => publicKeyFromPem(ec384Pem))).toBeInstanceOf(KeyConfigError);
    expect(publicKeyFromPem(await exportSPKI(rsa.publicKey)).algorithms).toEqual(['RS256']);
    const privatePem = await exportPKCS8(rsa.privateKey);
    expect(thrown(() => publicKeyFromPem(privatePem))).toBeInstanceOf(KeyConfigError);
    expect(thrown(() => publicKeyFromPem('-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----'))).toBeInstanceOf(
      KeyConfigError,
    );
  });

  it('a JWKS refuses symmetric keys, private keys, unsupported curves and mismatched alg', async () => {
    const ec = await generateKeyPair('ES256', { extractable: true });
    const ec384 = await generateKeyPair('ES384', { extractable: true });
    const publicJwk = await exportJWK(ec.publicKey);
    expect(jwksKey({ keys: [publicJwk] }).algorithms).toEqual(['ES256']);
    const bad = [
      undefined,
      { keys: [] },
      { keys: 'x' },
      { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] },
      { keys: [await exportJWK(ec.privateKey)] },
      { keys: [await exportJWK(ec384.publicKey)] },
      { keys: [{ ...publicJwk, alg: 'HS256' }] },
      { keys: [42] },
    ];
    for (const jwks of bad) expect(thrown(() => jwksKey(jwks))).toBeInstanceOf(KeyConfigError);
  });

  it('restrictAlgorithms narrows, never widens', () => {
    const key = secretKey('y'.repeat(40));
    expect(restrictAlgorithms(key, ['HS256']).algorithms).toEqual(['HS256']);
    expect(thrown(() => restrictAlgorithms(key, ['RS256']))).toBeInstanceOf(KeyConfigError);
    expect(thrown(() => restrictAlgorithms(key, []))).toBeInstanceOf(KeyConfigError);
  });
});
