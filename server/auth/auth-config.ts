/**
 * Auth configuration from the command line and the environment (pure: no file is read here).
 *
 * | flag                        | env                   | meaning                                            |
 * |-----------------------------|-----------------------|----------------------------------------------------|
 * | `--auth-secret <s>`         | `AUTH_SECRET`         | HS256 shared secret (≥ 32 bytes)                   |
 * | `--auth-public-key <file>`  | `AUTH_PUBLIC_KEY_FILE`| PEM SPKI public key: RSA → RS256, EC P-256 → ES256 |
 * | `--auth-jwks <file>`        | `AUTH_JWKS_FILE`      | JSON Web Key Set file of public keys               |
 * | `--auth-issuer <iss>`       | `AUTH_ISSUER`         | required `iss` (optional)                          |
 * | `--auth-audience <aud>`     | `AUTH_AUDIENCE`       | required `aud` (optional)                          |
 * | `--require-auth`            | `REQUIRE_AUTH=1`      | refuse to start without a key                      |
 *
 * Flags win over env. Exactly one key source may be configured (flags and env are checked separately: a key
 * flag replaces any env key). With no key the hub runs OPEN: every client may read and write every session.
 * Prefer `AUTH_SECRET` over `--auth-secret`: command lines are visible to other users in `ps`.
 */

export interface AuthCliOptions {
  readonly authSecret?: string | undefined;
  readonly authPublicKey?: string | undefined;
  readonly authJwks?: string | undefined;
  readonly authIssuer?: string | undefined;
  readonly authAudience?: string | undefined;
  readonly requireAuth?: boolean | undefined;
}

export type AuthKeySource =
  | { readonly kind: 'secret'; readonly secret: string }
  | { readonly kind: 'public-key'; readonly file: string }
  | { readonly kind: 'jwks'; readonly file: string };

export type AuthConfig =
  | { readonly mode: 'open' }
  | {
      readonly mode: 'token';
      readonly key: AuthKeySource;
      readonly issuer: string | undefined;
      readonly audience: string | undefined;
    };

export type AuthConfigResult =
  { readonly ok: true; readonly config: AuthConfig } | { readonly ok: false; readonly error: string };

type Env = Readonly<Record<string, string | undefined>>;

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function keySources(
  secret: string | undefined,
  publicKey: string | undefined,
  jwks: string | undefined,
): AuthKeySource[] {
  const sources: AuthKeySource[] = [];
  if (secret !== undefined) sources.push({ kind: 'secret', secret });
  if (publicKey !== undefined) sources.push({ kind: 'public-key', file: publicKey });
  if (jwks !== undefined) sources.push({ kind: 'jwks', file: jwks });
  return sources;
}

/** Parse a boolean env value: 1/true/yes/on and 0/false/no/off/'' (any case); anything else is undefined. */
export function parseEnvBoolean(value: string | undefined): boolean | undefined {
  if (value === undefined) return false;
  const normalized = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(normalized)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(normalized)) return false;
  return undefined;
}

/** Resolve the auth configuration from parsed flags and the environment, or say what is wrong. */
export function resolveAuthConfig(options: AuthCliOptions, env: Env): AuthConfigResult {
  const fromFlags = keySources(
    nonEmpty(options.authSecret),
    nonEmpty(options.authPublicKey),
    nonEmpty(options.authJwks),
  );
  const fromEnv = keySources(
    nonEmpty(env['AUTH_SECRET']),
    nonEmpty(env['AUTH_PUBLIC_KEY_FILE']),
    nonEmpty(env['AUTH_JWKS_FILE']),
  );
  if (fromFlags.length > 1) {
    return { ok: false, error: 'use only one of --auth-secret, --auth-public-key, --auth-jwks' };
  }
  if (fromFlags.length === 0 && fromEnv.length > 1) {
    return { ok: false, error: 'set only one of AUTH_SECRET, AUTH_PUBLIC_KEY_FILE, AUTH_JWKS_FILE' };
  }
  const envRequire = parseEnvBoolean(env['REQUIRE_AUTH']);
  if (envRequire === undefined) {
    return {
      ok: false,
      error: `REQUIRE_AUTH must be a boolean (1/0, true/false), got ${JSON.stringify(env['REQUIRE_AUTH'])}`,
    };
  }
  const requireAuth = options.requireAuth === true || envRequire;
  const key = fromFlags[0] ?? fromEnv[0];
  const issuer = nonEmpty(options.authIssuer) ?? nonEmpty(env['AUTH_ISSUER']);
  const audience = nonEmpty(options.authAudience) ?? nonEmpty(env['AUTH_AUDIENCE']);
  if (key === undefined) {
    if (requireAuth) {
      return {
        ok: false,
        error:
          'auth is required (--require-auth / REQUIRE_AUTH) but no key is configured: ' +
          'set --auth-secret, --auth-public-key or --auth-jwks',
      };
    }
    if (issuer !== undefined || audience !== undefined) {
      return { ok: false, error: 'an auth issuer or audience is set but no key is configured' };
    }
    return { ok: true, config: { mode: 'open' } };
  }
  return { ok: true, config: { mode: 'token', key, issuer, audience } };
}

/** What the hub must say at startup about auth: open mode is a loud warning. */
export function authStartupNotice(config: AuthConfig): { readonly level: 'warn' | 'info'; readonly message: string } {
  if (config.mode === 'open') {
    return {
      level: 'warn',
      message:
        'AUTH DISABLED: no --auth-secret/--auth-public-key/--auth-jwks configured; this hub is OPEN and anyone ' +
        'who can reach it can read and write every session. Use --require-auth in production.',
    };
  }
  const what = config.key.kind === 'secret' ? 'HS256 shared secret' : `${config.key.kind} ${config.key.file}`;
  return { level: 'info', message: `auth: JWT bearer tokens required (${what})` };
}
