// `session-hub/protocol`: the wire protocol v1 (docs/protocol.md) for tools that speak it without the SDK: message
// types, error and close codes, the frame codec and the message parsers. Every name is listed here (no `export *`);
// api/protocol.api.md is the report of this surface.
export { PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, PROTOCOL_BOUNDS, HubErrorCode, CloseCode } from './protocol.ts';
export type {
  ClientMessage,
  ClientMessageType,
  HelloRequest,
  AuthRequest,
  SubscribeRequest,
  UnsubscribeRequest,
  AppendRequest,
  PingRequest,
  SetMetadataRequest,
  ForkRequest,
  ServerMessage,
  WelcomeMessage,
  AnnouncedLimits,
  SnapshotMessage,
  SnapshotDeclined,
  SubscribedMessage,
  EventsMessage,
  LiveMessage,
  AckMessage,
  ForkedMessage,
  ResetMessage,
  Watcher,
  PresenceMessage,
  MetadataMessage,
  SessionMetadata,
  MetadataPatch,
  UnsubscribedMessage,
  AuthenticatedMessage,
  PongMessage,
  ErrorMessage,
} from './protocol.ts';
export { METADATA_LIMITS } from './session-metadata.ts';
export { encodeFrame, encodeTextFrame, decodeFrame, FrameDecodeError } from './codec.ts';
export { parseClientMessage, parseServerMessage, ProtocolParseError } from './protocol-parse.ts';
