import { Packr } from 'msgpackr';

const packr = new Packr({ useRecords: false, moreTypes: false });

/** Encode one wire message as a binary (msgpack) frame, as the hub's codec does. */
export function encodeWire(message: unknown): Buffer {
  return packr.pack(message);
}

/** Decode a binary frame. */
export function decodeWire(frame: Buffer | Uint8Array): unknown {
  return packr.unpack(frame);
}
