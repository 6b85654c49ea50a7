// `session-hub/react`: React hooks over the client SDK (react is an optional peer dependency).
export { HubProvider, useHubClient } from './hub-context.ts';
export type { HubProviderProps } from './hub-context.ts';
export { useSession } from './use-session.ts';
export type { UseSessionOptions, UseSessionResult } from './use-session.ts';
export { useAppend } from './use-append.ts';
export type { AppendToSession } from './use-append.ts';
export { sessionView, SessionView, EMPTY_SESSION_SNAPSHOT } from '../session-store.ts';
export type { SessionSnapshot, SessionStatus, SessionViewOptions } from '../session-store.ts';
export { useHubChat } from './use-hub-chat.ts';
export type { ChatHelpersLike } from './use-hub-chat.ts';
