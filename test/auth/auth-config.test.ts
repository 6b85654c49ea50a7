import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  authStartupNotice,
  KeyConfigError,
  loadAuthenticator,
  loadVerificationKey,
  resolveAuthConfig,
  type AuthConfig,
} from '../../server/auth/index.ts';
import { asymmetricIssuer, hs256Issuer, randomSecret } from '../helpers/tokens.ts';

const secret = randomSecret();

function config(result: ReturnType<typeof resolveAuthConfig>): AuthConfig {
  if (!result.ok) throw new Error(result.error);
  return result.config;
}

describe('resolveAuthConfig (flags, env) → config or error', () => {
  it('no key: open mode, with a loud startup warning', () => {
    const open = config(resolveAuthConfig({}, {}));
    expect(open).toEqual({ mode: 'open' });
    const notice = authStartupNotice(open);
    expect(notice.level).toBe('warn');
    expect(notice.message).toMatch(/AUTH DISABLED.*OPEN/);
  });

  it('--require-auth or REQUIRE_AUTH without a key refuses to start', () => {
    for (const result of [
      resolveAuthConfig({ requireAuth: true }, {}),
      resolveAuthConfig({}, { REQUIRE_AUTH: '1' }),
      resolveAuthConfig({}, { REQUIRE_AUTH: 'true' }),
    ]) {
      expect(result).toMatchObject({ ok: false, error: expect.stringMatching(/no key is configured/) });
    }
  });

  it('a key from flags or env, with issuer and audience', () => {
    expect(config(resolveAuthConfig({ authSecret: secret, authIssuer: 'id', authAudience: 'hub' }, {}))).toEqual({
      mode: 'token',
      key: { kind: 'secret', secret },
      issuer: 'id',
      audience: 'hub',
    });
    expect(config(resolveAuthConfig({}, { AUTH_JWKS_FILE: '/k.json', AUTH_ISSUER: 'i', REQUIRE_AUTH: '1' }))).toEqual({
      mode: 'token',
      key: { kind: 'jwks', file: '/k.json' },
      issuer: 'i',
      audience: undefined,
    });
    const pem = config(resolveAuthConfig({ authPublicKey: '/pub.pem', requireAuth: true }, {}));
    expect(pem).toMatchObject({ key: { kind: 'public-key', file: '/pub.pem' } });
    expect(authStartupNotice(pem)).toEqual({ level: 'info', message: expect.stringContaining('/pub.pem') });
  });

  it('flags win over env; a key flag replaces an env key of another kind', () => {
    const result = config(
      resolveAuthConfig({ authJwks: '/flag.json', authIssuer: 'flag' }, { AUTH_SECRET: secret, AUTH_ISSUER: 'env' }),
    );
    expect(result).toMatchObject({ key: { kind: 'jwks', file: '/flag.json' }, issuer: 'flag' });
  });

  it('two key sources, a bad REQUIRE_AUTH, or issuer without key are errors', () => {
    expect(resolveAuthConfig({ authSecret: secret, authJwks: '/k' }, {}).ok).toBe(false);
    expect(resolveAuthConfig({}, { AUTH_SECRET: secret, AUTH_PUBLIC_KEY_FILE: '/p' }).ok).toBe(false);
    expect(resolveAuthConfig({}, { REQUIRE_AUTH: 'maybe' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/REQUIRE_AUTH/),
    });
    expect(resolveAuthConfig({ authIssuer: 'id' }, {}).ok).toBe(false);
  });

  it('empty values count as unset', () => {
    expect(config(resolveAuthConfig({ authSecret: '' }, { AUTH_SECRET: '', REQUIRE_AUTH: '' }))).toEqual({
      mode: 'open',
    });
  });
});

describe('loadAuthenticator reads the configured key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'session-hub-auth-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('secret, PEM file and JWKS file all verify their issuers’ tokens', async () => {
    const hs = hs256Issuer(secret);
    const rs = await asymmetricIssuer('RS256');
    const es = await asymmetricIssuer('ES256');
    writeFileSync(join(dir, 'rs.pem'), rs.publicKeyPem!);
    writeFileSync(join(dir, 'es.jwks.json'), JSON.stringify(es.jwks));
    const cases = [
      [{ kind: 'secret', secret }, hs],
      [{ kind: 'public-key', file: join(dir, 'rs.pem') }, rs],
      [{ kind: 'jwks', file: join(dir, 'es.jwks.json') }, es],
    ] as const;
    for (const [key, issuer] of cases) {
      const auth = await loadAuthenticator({ mode: 'token', key, issuer: undefined, audience: undefined });
      await expect(auth.verify(await issuer.sign({ sub: issuer.alg, sh: {} }))).resolves.toMatchObject({
        subject: issuer.alg,
      });
    }
    expect((await loadAuthenticator({ mode: 'open' })).mode).toBe('open');
  });

  it('unreadable files, bad PEM, bad JSON and short secrets fail at startup with KeyConfigError', async () => {
    writeFileSync(join(dir, 'bad.pem'), 'not a key');
    writeFileSync(join(dir, 'bad.json'), '{ keys: ');
    const sources = [
      { kind: 'public-key', file: join(dir, 'missing.pem') },
      { kind: 'public-key', file: join(dir, 'bad.pem') },
      { kind: 'jwks', file: join(dir, 'bad.json') },
      { kind: 'secret', secret: 'short' },
    ] as const;
    for (const source of sources) {
      await expect(loadVerificationKey(source)).rejects.toBeInstanceOf(KeyConfigError);
    }
  });
});
