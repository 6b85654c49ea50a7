import {
  createAuthenticator,
  createHubAuth,
  publicKeyFromPem,
  type AuthenticatorOptions,
} from '../../server/auth/index.ts';
import type { RedisStore } from '../../server/store/redis/redis-store.ts';
import { test } from '../helpers/fixtures.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { asymmetricIssuer, type TestIssuer } from '../helpers/tokens.ts';

/** A real hub on a real Redis, requiring RS256 tokens from `issuer` (iss `https://id.test`, aud `session-hub`). */
export interface SecureHub {
  readonly hub: TestHub;
  readonly store: RedisStore;
  readonly issuer: TestIssuer;
  /** Sign a token with the right issuer and audience (and an hour of validity unless told otherwise). */
  mint(grants: object, options?: Parameters<TestIssuer['sign']>[1]): Promise<string>;
}

export const ISSUER = 'https://id.test';
export const AUDIENCE = 'session-hub';

/**
 * The fixtures of test/helpers/fixtures.ts and `secureHub`: a hub node on the file's Redis (keys under `sec:`,
 * `hubConfig`) that requires tokens, checked with `authOptions` over the issuer's key, issuer and audience;
 * started the first time a test of the file names it, stopped after the file's last test.
 */
export const secureTest = test
  .extend('authOptions', { scope: 'file' }, {} as Partial<AuthenticatorOptions>)
  .extend(
    'secureHub',
    { scope: 'file' },
    async ({ openRedisStore, hubConfig, authOptions }, { onCleanup }): Promise<SecureHub> => {
      const store = await openRedisStore({ keyPrefix: 'sec:' });
      const issuer = await asymmetricIssuer('RS256');
      const authenticator = createAuthenticator({
        key: publicKeyFromPem(issuer.publicKeyPem!),
        issuer: ISSUER,
        audience: AUDIENCE,
        ...authOptions,
      });
      const hub = await startHub({ store, auth: createHubAuth(authenticator), ...hubConfig });
      onCleanup(() => hub.close());
      return {
        hub,
        store,
        issuer,
        mint: (grants, options) => issuer.sign({ iss: ISSUER, aud: AUDIENCE, sub: 'tester', sh: grants }, options),
      };
    },
  );
