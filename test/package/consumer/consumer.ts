// Type-checked by a consumer's `tsc --noEmit` with only strict + NodeNext (no skipLibCheck): the public types of the
// three entry points as an application uses them.
import { HubClient, HubClientError, type HubClientOptions, type SessionEvent } from 'session-hub';
import { deriveMessages, Session, type DerivedMessage, type EventDraft } from 'session-hub/shared';
import { HubErrorCode, type ServerMessage } from 'session-hub/protocol';
import {
  createHub,
  createAuthenticator,
  createHubAuth,
  HubError,
  MemoryStore,
  RedisStore,
  secretKey,
  type Hub,
  type HubAuth,
  type HubConfig,
} from 'session-hub/server';

const auth: HubAuth = {
  authenticate: (token) => ({ subject: token ?? 'anonymous' }),
  authorize: (principal, action, sessionId) => {
    if (action === 'admin') throw new HubError(HubErrorCode.FORBIDDEN, `${principal.subject} may not ${action}`);
    return sessionId.startsWith('public/');
  },
};
const config: HubConfig = { store: new MemoryStore(), port: 0, auth };
const hub: Hub = createHub(config);
const jwt: HubAuth = createHubAuth(createAuthenticator({ key: secretKey('a-secret-of-at-least-32-bytes-long!!') }));
const redis: Promise<RedisStore> = RedisStore.open({ url: 'redis://127.0.0.1:6379' });

const options: HubClientOptions = { url: 'ws://127.0.0.1:8080/v1/ws' };
const client = new HubClient(options);
const draft: EventDraft = { type: 'user/message', data: { role: 'user', content: 'hi' } };
const literal = { type: 'user/message', data: { role: 'user', content: 'hi' } } as const;
const committed: Promise<SessionEvent[]> = client.append('public/1', literal);
const messages: DerivedMessage[] = deriveMessages([]);
const session = new Session();
const isClientError = (error: unknown): boolean => error instanceof HubClientError;
const onMessage = (message: ServerMessage): string => message.type;

export { draft, hub, jwt, redis, committed, messages, session, isClientError, onMessage };
