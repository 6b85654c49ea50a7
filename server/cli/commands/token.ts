import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { SignJWT } from 'jose';
import { GRANT_ACTIONS, GRANTS_CLAIM, patternProblem, type GrantAction } from '../../auth/grants.ts';
import { MIN_SECRET_BYTES } from '../../auth/verification-key.ts';
import { CliFailure, defineCommand, UsageError } from '../command.ts';
import { hubEnv } from '../env.ts';

const usage = `Usage: session-hub token --sub <subject> --grant <action>:<pattern> [--grant …] [options]

Mints a JWT for a hub (development and tests): the given subject and grants in the sh claim, signed HS256
with the secret in SESSION_HUB_AUTH_SECRET (or AUTH_SECRET), or RS256/ES256 with --key. Prints the token on
stdout and, on stderr, what it grants and when it expires.

Grants: <action> is read, append, admin or redact; <pattern> is a session id, a prefix ending in /* (acme/*) or *.

Options:
  --sub <subject>      the token's subject (sub claim; shown in the hub's logs)
  --grant <a>:<p>      a right on sessions, repeatable (e.g. --grant read:acme/* --grant append:acme/run-7)
  --ttl <duration>     lifetime: 90s, 15m, 1h (default), 7d; at most 366d
  --key <file>         PEM private key (PKCS#8): RSA (>= 2048 bits) signs RS256, EC P-256 signs ES256
  --kid <id>           key id header (for hubs that verify with a JWKS)
  --issuer <iss>       iss claim (for hubs started with --auth-issuer)
  --audience <aud>     aud claim (for hubs started with --auth-audience)
  -h, --help           show this help

Example:
  SESSION_HUB_TOKEN=$(session-hub token --sub alice --grant read:acme/* --grant append:acme/run-7 --ttl 15m)
`;

const units: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };
const maxTtlSeconds = 366 * 86_400;

function parseTtl(text: string): number {
  const match = /^(\d{1,9})([smhd]?)$/.exec(text);
  const seconds = match === null ? Number.NaN : Number(match[1]) * units[match[2] || 's']!;
  if (!(seconds >= 1 && seconds <= maxTtlSeconds)) {
    throw new UsageError(
      `--ttl must be a duration such as 90s, 15m, 1h or 7d (at most 366d), got ${JSON.stringify(text)}`,
    );
  }
  return seconds;
}

function parseGrantOptions(texts: readonly string[]): Record<GrantAction, string[]> {
  if (texts.length === 0) throw new UsageError('give at least one --grant <action>:<pattern>');
  const grants: Record<GrantAction, string[]> = { read: [], append: [], admin: [], redact: [] };
  for (const text of texts) {
    const colon = text.indexOf(':');
    const action = text.slice(0, colon) as GrantAction;
    const pattern = text.slice(colon + 1);
    if (colon < 0 || !GRANT_ACTIONS.includes(action)) {
      throw new UsageError(
        `--grant ${JSON.stringify(text)}: expected <action>:<pattern> with action read, append, admin or redact`,
      );
    }
    const problem = patternProblem(pattern);
    if (problem !== undefined) throw new UsageError(`--grant ${JSON.stringify(text)}: the pattern ${problem}`);
    if (!grants[action].includes(pattern)) grants[action].push(pattern);
  }
  return grants;
}

/** The signing key: a PEM private key file (RS256/ES256), else the HS256 secret from the environment. */
async function signingKey(
  keyFile: string | undefined,
  secret: string | undefined,
): Promise<{ readonly alg: 'HS256' | 'RS256' | 'ES256'; readonly key: KeyObject | Uint8Array }> {
  if (keyFile !== undefined) {
    let key: KeyObject;
    try {
      key = createPrivateKey({ key: await readFile(keyFile, 'utf8'), format: 'pem' });
    } catch (error) {
      throw new CliFailure(`cannot read a PEM private key from ${keyFile}: ${(error as Error).message}`);
    }
    if (key.asymmetricKeyType === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= 2048) {
      return { alg: 'RS256', key };
    }
    if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') {
      return { alg: 'ES256', key };
    }
    throw new CliFailure(`${keyFile}: use an RSA key of at least 2048 bits (RS256) or an EC P-256 key (ES256)`);
  }
  if (secret === undefined) {
    throw new UsageError('no signing key: set SESSION_HUB_AUTH_SECRET (or AUTH_SECRET), or pass --key <pem>');
  }
  const bytes = new TextEncoder().encode(secret);
  if (bytes.byteLength < MIN_SECRET_BYTES) {
    throw new UsageError(`the auth secret must be at least ${MIN_SECRET_BYTES} bytes (got ${bytes.byteLength})`);
  }
  return { alg: 'HS256', key: bytes };
}

export const tokenCommand = defineCommand({
  name: 'token',
  summary: 'mint a JWT with grants (development and tests)',
  usage,
  options: {
    sub: { type: 'string' },
    grant: { type: 'string', multiple: true },
    ttl: { type: 'string' },
    key: { type: 'string' },
    kid: { type: 'string' },
    issuer: { type: 'string' },
    audience: { type: 'string' },
  },
  async run({ values }, io) {
    if (values.sub === undefined) throw new UsageError('missing --sub <subject>');
    const grants = parseGrantOptions(values.grant ?? []);
    const ttlSeconds = parseTtl(values.ttl ?? '1h');
    const { alg, key } = await signingKey(values.key, hubEnv(io.env)['AUTH_SECRET'] || undefined);
    const now = Math.floor(Date.now() / 1000);
    const claim = Object.fromEntries(Object.entries(grants).filter(([, patterns]) => patterns.length > 0));
    const jwt = new SignJWT({ [GRANTS_CLAIM]: claim })
      .setProtectedHeader(values.kid === undefined ? { alg, typ: 'JWT' } : { alg, typ: 'JWT', kid: values.kid })
      .setSubject(values.sub)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds);
    if (values.issuer !== undefined) jwt.setIssuer(values.issuer);
    if (values.audience !== undefined) jwt.setAudience(values.audience);
    io.stdout.write(`${await jwt.sign(key)}\n`);
    const granted = Object.entries(claim)
      .map(([action, patterns]) => `${action} ${patterns.join(', ')}`)
      .join('; ');
    const expires = new Date((now + ttlSeconds) * 1000).toISOString();
    io.stderr.write(`token for ${values.sub} (${alg}): ${granted}; expires ${expires}\n`);
    return 0;
  },
});
