import { decodeFrame, encodeFrame } from '../shared/codec.ts';
import { parseServerMessage } from '../shared/protocol-parse.ts';
import type { ClientMessage, ServerMessage } from '../shared/protocol.ts';
import { ClientErrorCode, HubClientError } from './errors.ts';
import { frameBytes } from './transport.ts';

/** Encode a request as a binary (msgpack) frame. */
export function encodeRequest(message: ClientMessage): Uint8Array {
  return encodeFrame(message);
}

/** Decode and check one frame from the hub; throws `HubClientError` (code PROTOCOL) when it is not a message. */
export function decodeServerMessage(data: unknown): ServerMessage {
  const bytes = frameBytes(data);
  if (bytes === undefined) throw new HubClientError(ClientErrorCode.PROTOCOL, 'frame of an unexpected kind');
  try {
    return parseServerMessage(decodeFrame(bytes));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new HubClientError(ClientErrorCode.PROTOCOL, `unreadable frame from the hub: ${reason}`, { cause: error });
  }
}
