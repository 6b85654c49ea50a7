import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/** A test token issuer: one key, signs tokens with `sign(claims)`. */
export interface TestIssuer {
  readonly alg: 'HS256' | 'RS256' | 'ES256';
  /** HS256: the shared secret. */
  readonly secret?: string;
  /** RS256/ES256: the public key as PEM SPKI and as a JWKS with `kid`. */
  readonly publicKeyPem?: string;
  readonly jwks?: { readonly keys: readonly JWK[] };
  sign(claims: JWTPayload, options?: SignOptions): Promise<string>;
}

export interface SignOptions {
  /** Seconds from now until `exp` (default 3600); `null` for no `exp`. */
  readonly expiresIn?: number | null;
  /** Seconds from now for `nbf`. */
  readonly notBefore?: number;
  readonly kid?: string;
  /** Clock for iat/exp/nbf, epoch ms (default Date.now()). */
  readonly now?: number;
}

async function signWith(
  key: CryptoKey | Uint8Array,
  alg: string,
  claims: JWTPayload,
  options: SignOptions = {},
): Promise<string> {
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  const jwt = new SignJWT(claims)
    .setProtectedHeader(options.kid === undefined ? { alg, typ: 'JWT' } : { alg, typ: 'JWT', kid: options.kid })
    .setIssuedAt(nowSeconds);
  const expiresIn = options.expiresIn === undefined ? 3600 : options.expiresIn;
  if (expiresIn !== null) jwt.setExpirationTime(nowSeconds + expiresIn);
  if (options.notBefore !== undefined) jwt.setNotBefore(nowSeconds + options.notBefore);
  return jwt.sign(key);
}

/** An HS256 issuer with a random 48-character secret (or the one given). */
export function hs256Issuer(secret = randomSecret()): TestIssuer {
  const bytes = new TextEncoder().encode(secret);
  return { alg: 'HS256', secret, sign: (claims, options) => signWith(bytes, 'HS256', claims, options) };
}

/** An RS256 or ES256 issuer with a fresh key pair; its JWKS holds the public key under `kid`. */
export async function asymmetricIssuer(alg: 'RS256' | 'ES256', kid = `${alg}-test`): Promise<TestIssuer> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return {
    alg,
    publicKeyPem: await exportSPKI(publicKey),
    jwks: { keys: [jwk] },
    sign: (claims, options) => signWith(privateKey, alg, claims, { kid, ...options }),
  };
}

/** An unsigned `alg: none` token (which every hub must refuse). */
export function unsignedToken(claims: JWTPayload): string {
  const encode = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims)}.`;
}

/** A random secret long enough for HS256. */
export function randomSecret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(36))).toString('base64url');
}
