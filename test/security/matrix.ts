import { asymmetricIssuer, hs256Issuer, unsignedToken } from '../helpers/tokens.ts';
import { AUDIENCE, ISSUER, type SecureHub } from './secure-hub.ts';

/** The session every case targets; it holds one event written by a legitimate writer. */
export const TARGET = 'acme/target';

export type MatrixAction = 'read' | 'append';

/** One hostile or misconfigured request: a token (or none) and an action on TARGET, and the code it must get. */
export interface MatrixCase {
  readonly name: string;
  readonly action: MatrixAction;
  readonly code: 'UNAUTHORIZED' | 'TOKEN_EXPIRED' | 'FORBIDDEN';
  /** `undefined`: no token at all. */
  readonly token: (hub: SecureHub) => Promise<string | undefined>;
}

const claims = (sh: object) => ({ iss: ISSUER, aud: AUDIENCE, sub: 'mallory', sh });
const everything = { read: ['*'], append: ['*'] };

const tokenCases: readonly Omit<MatrixCase, 'action'>[] = [
  { name: 'no token when required', code: 'UNAUTHORIZED', token: async () => undefined },
  { name: 'garbage token', code: 'UNAUTHORIZED', token: async () => 'not.a.jwt' },
  {
    name: 'bad signature (another key pair)',
    code: 'UNAUTHORIZED',
    token: async () => (await asymmetricIssuer('RS256')).sign(claims(everything)),
  },
  {
    name: 'bad signature (payload tampered after signing)',
    code: 'UNAUTHORIZED',
    token: async (hub) => {
      const [header, , signature] = (await hub.mint({ read: ['nothing'] })).split('.');
      const payload = Buffer.from(JSON.stringify({ ...claims(everything), exp: 4e9 })).toString('base64url');
      return `${header}.${payload}.${signature}`;
    },
  },
  {
    name: 'expired',
    code: 'TOKEN_EXPIRED',
    token: (hub) => hub.mint(everything, { now: Date.now() - 7_200_000, expiresIn: 60 }),
  },
  { name: 'not yet valid', code: 'UNAUTHORIZED', token: (hub) => hub.mint(everything, { notBefore: 3600 }) },
  {
    name: 'alg: none',
    code: 'UNAUTHORIZED',
    token: async () => unsignedToken({ ...claims(everything), exp: Math.floor(Date.now() / 1000) + 600 }),
  },
  {
    name: 'wrong algorithm (ES256 against an RS256 hub)',
    code: 'UNAUTHORIZED',
    token: async () => (await asymmetricIssuer('ES256')).sign(claims(everything)),
  },
  {
    name: 'algorithm confusion (HS256 keyed with the public key)',
    code: 'UNAUTHORIZED',
    token: (hub) => hs256Issuer(hub.issuer.publicKeyPem!).sign(claims(everything)),
  },
  {
    name: 'wrong issuer',
    code: 'UNAUTHORIZED',
    token: (hub) => hub.issuer.sign({ ...claims(everything), iss: 'https://evil.test' }),
  },
  {
    name: 'wrong audience',
    code: 'UNAUTHORIZED',
    token: (hub) => hub.issuer.sign({ ...claims(everything), aud: 'another-service' }),
  },
  { name: 'no expiry', code: 'UNAUTHORIZED', token: (hub) => hub.mint(everything, { expiresIn: null }) },
  { name: 'malformed grants', code: 'UNAUTHORIZED', token: (hub) => hub.mint({ read: ['acme*'] }) },
  {
    name: 'token for another session',
    code: 'FORBIDDEN',
    token: (hub) => hub.mint({ read: ['acme/other'], append: ['acme/other'] }),
  },
  {
    name: 'token for another tenant',
    code: 'FORBIDDEN',
    token: (hub) => hub.mint({ read: ['globex/*'], append: ['globex/*'] }),
  },
  {
    name: 'tenant prefix look-alike (acme-corp/*)',
    code: 'FORBIDDEN',
    token: (hub) => hub.mint({ read: ['acme-corp/*'], append: ['acme-corp/*'] }),
  },
  {
    name: 'admin only (admin does not imply read or append)',
    code: 'FORBIDDEN',
    token: (hub) => hub.mint({ admin: true }),
  },
];

/** Every token case for both actions, plus the grant-direction cases. */
export const MATRIX: readonly MatrixCase[] = [
  ...tokenCases.flatMap((entry) => (['read', 'append'] as const).map((action) => ({ ...entry, action }))),
  {
    name: 'read-only token appending',
    action: 'append',
    code: 'FORBIDDEN',
    token: (hub) => hub.mint({ read: ['acme/*'] }),
  },
  {
    name: 'append-only token subscribing (append does not imply read)',
    action: 'read',
    code: 'FORBIDDEN',
    token: (hub) => hub.mint({ append: ['acme/*'] }),
  },
];

export const matrixTitle = (entry: MatrixCase) => `${entry.action}: ${entry.name} → ${entry.code}`;
