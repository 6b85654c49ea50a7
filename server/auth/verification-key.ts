import { createPublicKey, type KeyObject } from 'node:crypto';
import { createLocalJWKSet, type JSONWebKeySet, type JWK, type JWTVerifyGetKey } from 'jose';

/** The signature algorithms the hub can be configured for: one family per key. */
export type AuthAlgorithm = 'HS256' | 'RS256' | 'ES256';

/** Shortest shared secret accepted for HS256 (bytes): 256 bits, the hash size. */
export const MIN_SECRET_BYTES = 32;

/** What tokens are checked against, and the only algorithms accepted with it. */
export type VerificationKey =
  | { readonly kind: 'secret'; readonly secret: Uint8Array; readonly algorithms: readonly AuthAlgorithm[] }
  | { readonly kind: 'public-key'; readonly key: KeyObject; readonly algorithms: readonly AuthAlgorithm[] }
  | { readonly kind: 'jwks'; readonly getKey: JWTVerifyGetKey; readonly algorithms: readonly AuthAlgorithm[] };

/** A key that cannot be used; the message says why. Raised at startup, never per request. */
export class KeyConfigError extends Error {
  override readonly name = 'KeyConfigError';
}

/** An HS256 shared secret (UTF-8 of the string, or the bytes). At least `MIN_SECRET_BYTES` long. */
export function secretKey(secret: string | Uint8Array): VerificationKey {
  const bytes = typeof secret === 'string' ? new TextEncoder().encode(secret) : Uint8Array.from(secret);
  if (bytes.byteLength < MIN_SECRET_BYTES) {
    throw new KeyConfigError(`the auth secret must be at least ${MIN_SECRET_BYTES} bytes (got ${bytes.byteLength})`);
  }
  return { kind: 'secret', secret: bytes, algorithms: ['HS256'] };
}

/**
 * A public key in PEM (SPKI, `-----BEGIN PUBLIC KEY-----`): RSA → RS256, EC P-256 → ES256. Private keys and
 * other key types are refused.
 */
export function publicKeyFromPem(pem: string): VerificationKey {
  if (!pem.includes('-----BEGIN PUBLIC KEY-----')) {
    throw new KeyConfigError('the auth public key must be a PEM SPKI public key (-----BEGIN PUBLIC KEY-----)');
  }
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: 'pem' });
  } catch (error) {
    throw new KeyConfigError('the auth public key could not be parsed as PEM SPKI', { cause: error });
  }
  return { kind: 'public-key', key, algorithms: [algorithmOfKeyObject(key)] };
}

function algorithmOfKeyObject(key: KeyObject): AuthAlgorithm {
  if (key.asymmetricKeyType === 'rsa') {
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
    if (bits < 2048) throw new KeyConfigError(`RSA keys must have at least 2048 bits (got ${bits})`);
    return 'RS256';
  }
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  throw new KeyConfigError(
    `unsupported public key type ${String(key.asymmetricKeyType)} (use RSA for RS256 or EC P-256 for ES256)`,
  );
}

/** The algorithm a JWK is for: its `alg` when present (must be RS256 or ES256), else derived from kty/crv. */
function algorithmOfJwk(jwk: JWK, index: number): AuthAlgorithm {
  if (jwk.kty === 'oct') throw new KeyConfigError(`JWKS key ${index} is a symmetric key; use --auth-secret instead`);
  if ('d' in jwk || 'p' in jwk) throw new KeyConfigError(`JWKS key ${index} contains private key material`);
  const derived = jwk.kty === 'RSA' ? 'RS256' : jwk.kty === 'EC' && jwk.crv === 'P-256' ? 'ES256' : undefined;
  if (derived === undefined) {
    throw new KeyConfigError(`JWKS key ${index} has unsupported kty/crv (use RSA or EC P-256)`);
  }
  if (jwk.alg !== undefined && jwk.alg !== derived) {
    throw new KeyConfigError(`JWKS key ${index} has alg ${jwk.alg}; only ${derived} is supported for its key type`);
  }
  return derived;
}

/** A JSON Web Key Set (parsed JSON, `{ keys: [...] }`) of public RSA / EC P-256 keys, matched by `kid`. */
export function jwksKey(jwks: unknown): VerificationKey {
  if (typeof jwks !== 'object' || jwks === null || !Array.isArray((jwks as { keys?: unknown }).keys)) {
    throw new KeyConfigError('the JWKS must be an object with a "keys" array');
  }
  const keys = (jwks as { keys: unknown[] }).keys;
  if (keys.length === 0) throw new KeyConfigError('the JWKS has no keys');
  const algorithms = new Set<AuthAlgorithm>();
  keys.forEach((jwk, index) => {
    if (typeof jwk !== 'object' || jwk === null) throw new KeyConfigError(`JWKS key ${index} is not an object`);
    algorithms.add(algorithmOfJwk(jwk as JWK, index));
  });
  let getKey: JWTVerifyGetKey;
  try {
    getKey = createLocalJWKSet(jwks as JSONWebKeySet);
  } catch (error) {
    throw new KeyConfigError('the JWKS is invalid', { cause: error });
  }
  return { kind: 'jwks', getKey, algorithms: [...algorithms] };
}

/** Narrow a key's accepted algorithms to `algorithms` (each must be one the key supports). */
export function restrictAlgorithms(key: VerificationKey, algorithms: readonly AuthAlgorithm[]): VerificationKey {
  if (algorithms.length === 0) throw new KeyConfigError('at least one algorithm must be accepted');
  for (const algorithm of algorithms) {
    if (!key.algorithms.includes(algorithm)) {
      throw new KeyConfigError(`algorithm ${algorithm} does not fit the configured ${key.kind} key`);
    }
  }
  return { ...key, algorithms: [...algorithms] };
}
