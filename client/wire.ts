import { decodeFrame, encodeFrame } from '../shared/codec.ts';
import { parseServerMessage } from '../shared/protocol-parse.ts';
import type { ClientMessage, ServerMessage } from '../shared/protocol.ts';
import { ClientErrorCode, HubClientError } from './errors.ts';
import { frameBytes } from './transport.ts';

/** Every server message type of protocol v1 (the record makes the compiler check the list is complete). */
const KNOWN_SERVER_TYPES: Readonly<Record<ServerMessage['type'], true>> = {
  welcome: true,
  snapshot: true,
  subscribed: true,
  events: true,
  live: true,
  ack: true,
  forked: true,
  reset: true,
  presence: true,
  metadata: true,
  unsubscribed: true,
  authenticated: true,
  pong: true,
  error: true,
};

/** Encode a request as a binary (msgpack) frame. */
export function encodeRequest(message: ClientMessage): Uint8Array {
  return encodeFrame(message);
}

/**
 * Decode and check one frame from the hub. Returns undefined for a message of a type this SDK does not know
 * (a newer hub may send more types; docs/protocol.md says clients ignore them). Throws `HubClientError` (code
 * PROTOCOL) when the frame is not a message, or is a known type with a malformed shape.
 */
export function decodeServerMessage(data: unknown): ServerMessage | undefined {
  const bytes = frameBytes(data);
  if (bytes === undefined) throw new HubClientError(ClientErrorCode.PROTOCOL, 'frame of an unexpected kind');
  try {
    const value = decodeFrame(bytes);
    if (hasUnknownType(value)) return undefined;
    return parseServerMessage(value);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new HubClientError(ClientErrorCode.PROTOCOL, `unreadable frame from the hub: ${reason}`, { cause: error });
  }
}

/** An object whose `type` is a string naming no message of protocol v1. */
function hasUnknownType(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const type = (value as { readonly type?: unknown }).type;
  return typeof type === 'string' && !Object.hasOwn(KNOWN_SERVER_TYPES, type);
}
