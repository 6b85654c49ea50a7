// `session-hub/protocol`: the wire protocol v1 (docs/protocol.md) for tools that speak it without the SDK: message
// types, error and close codes, the frame codec and the message parsers.
export * from './protocol.ts';
export { encodeFrame, encodeTextFrame, decodeFrame, FrameDecodeError } from './codec.ts';
export { parseClientMessage, parseServerMessage, ProtocolParseError } from './protocol-parse.ts';
