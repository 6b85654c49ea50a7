import {
  createAuthenticator,
  createHubAuth,
  publicKeyFromPem,
  type AuthenticatorOptions,
} from '../../server/auth/index.ts';
import type { HubConfig } from '../../server/config.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { RedisServer } from '../helpers/redis-server.ts';
import { asymmetricIssuer, type TestIssuer } from '../helpers/tokens.ts';

/** A real hub on a real Redis, requiring RS256 tokens from `issuer` (iss `https://id.test`, aud `session-hub`). */
export interface SecureHub {
  readonly hub: TestHub;
  readonly store: RedisStore;
  readonly issuer: TestIssuer;
  /** Sign a token with the right issuer and audience (and an hour of validity unless told otherwise). */
  mint(grants: object, options?: Parameters<TestIssuer['sign']>[1]): Promise<string>;
  close(): Promise<void>;
}

export const ISSUER = 'https://id.test';
export const AUDIENCE = 'session-hub';

export async function startSecureHub(
  config: Partial<HubConfig> = {},
  authOptions: Partial<AuthenticatorOptions> = {},
): Promise<SecureHub> {
  const redis = await RedisServer.start();
  const store = await RedisStore.open({ url: redis.url, keyPrefix: 'sec:' });
  const issuer = await asymmetricIssuer('RS256');
  const authenticator = createAuthenticator({
    key: publicKeyFromPem(issuer.publicKeyPem!),
    issuer: ISSUER,
    audience: AUDIENCE,
    ...authOptions,
  });
  const hub = await startHub({ store, auth: createHubAuth(authenticator), ...config });
  return {
    hub,
    store,
    issuer,
    mint: (grants, options) => issuer.sign({ iss: ISSUER, aud: AUDIENCE, sub: 'tester', sh: grants }, options),
    close: async () => {
      await hub.close();
      await store.close();
      await redis.stop();
    },
  };
}
