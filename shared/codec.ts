import { Packr } from 'msgpackr';
import type { ClientMessage, ServerMessage } from './protocol.ts';

/**
 * The wire codec of protocol v1: binary frames are plain msgpack (no records, no extensions any client cannot
 * read), text frames are JSON. Browser-safe: no Node built-ins.
 *
 * `decodeFrame` returns `unknown`: narrow it with `parseClientMessage` / `parseServerMessage`
 * (shared/protocol-parse.ts) before use.
 */
const packr = new Packr({ useRecords: false, mapsAsObjects: true, int64AsType: 'number' });

/** Thrown by `decodeFrame` when a frame is not valid msgpack or JSON (wire code `PARSE_ERROR`). */
export class FrameDecodeError extends Error {
  override readonly name = 'FrameDecodeError';
  readonly code = 'PARSE_ERROR';
}

/** Encode one protocol message as a binary (msgpack) frame. */
export function encodeFrame(message: ClientMessage | ServerMessage): Uint8Array {
  return packr.pack(message);
}

/** Encode one protocol message as a text (JSON) frame, for clients that speak JSON. */
export function encodeTextFrame(message: ClientMessage | ServerMessage): string {
  return JSON.stringify(message);
}

/**
 * Encode any value the way `encodeFrame` encodes a message, unchecked: for parts of a frame built apart (the hub's
 * catch-up pages and live batches, the SDK's size estimates) and for tests that send malformed frames on purpose.
 * A whole message goes through `encodeFrame`.
 */
export function encodeMsgpackValue(value: unknown): Uint8Array {
  return packr.pack(value);
}

/**
 * Decode one frame: a string is JSON text, bytes are msgpack. Throws `FrameDecodeError` when the frame cannot be
 * decoded or carries trailing bytes; the value itself is not checked.
 */
export function decodeFrame(data: Uint8Array | string): unknown {
  if (typeof data === 'string') {
    try {
      return JSON.parse(data) as unknown;
    } catch (error) {
      throw new FrameDecodeError(`frame is not valid JSON: ${describe(error)}`, { cause: error });
    }
  }
  if (data.byteLength === 0) throw new FrameDecodeError('empty frame');
  let values: unknown[];
  try {
    values = packr.unpackMultiple(data) as unknown[];
  } catch (error) {
    throw new FrameDecodeError(`frame is not valid msgpack: ${describe(error)}`, { cause: error });
  }
  if (values.length !== 1) throw new FrameDecodeError(`frame holds ${values.length} msgpack values, expected 1`);
  return values[0];
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
