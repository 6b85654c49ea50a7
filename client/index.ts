// `session-hub`: the client SDK (browsers and Node).
export { HubClient } from './hub-client.ts';
export type { HubClientOptions, HubClientState, HubClientEvents, SubscribeOptions } from './hub-client.ts';
export { Subscription } from './subscription.ts';
export type { SubscriptionState, SubscriptionEvents } from './subscription-types.ts';
export type { AppendOptions } from './appender.ts';
export { AgentWriter } from './agent-writer.ts';
export type { AgentWriterOptions, ToolCallInput, ToolResultInput } from './agent-writer-types.ts';
export { HubClientError, ClientErrorCode, isHubErrorCode } from './errors.ts';
export type { HubClientErrorCode, HubClientErrorDetails } from './errors.ts';
export type { BackoffOptions } from './backoff.ts';
export type { TokenSource } from './connection.ts';
export type { WebSocketConstructor, WebSocketLike } from './transport.ts';
export type { ProjectionChange } from './core.ts';
export type { SessionEvent, DerivedMessage, EventDraft } from '../shared/index.ts';
export { HubErrorCode, CloseCode } from '../shared/protocol.ts';
export type { PresenceChange } from './presence.ts';
export type { Watcher } from '../shared/protocol.ts';
