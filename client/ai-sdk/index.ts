// `session-hub/ai-sdk`: the session hub as a transport for the Vercel AI SDK's `useChat` (`ai` is an optional peer).
export { HubChatTransport, MAX_UI_MESSAGE_ID_LENGTH } from './hub-chat-transport.ts';
export type { HubChatTransportOptions } from './hub-chat-transport.ts';
export { derivedToUIMessages, uiToDerivedMessages } from './derived-ui.ts';
export { logToUIMessages, UIMessageBuilder } from './log-ui.ts';
export type { HubUIMessage } from './log-ui.ts';
export { TurnChunker, turnMessageId } from './turn-chunks.ts';
export type { HubTurnMetadata } from './turn-chunks.ts';
export { pendingReply, turnStream } from './turn-stream.ts';
export type { PendingReply } from './turn-stream.ts';
