/**
 * Whether every string in msgpack bytes of any form is well-formed UTF-8. msgpackr decodes a bad sequence
 * without complaint (as U+FFFD, or as whatever code point its JavaScript decoder assembles), so a reader that
 * must refuse corrupt stored data checks the string bytes first. The walk builds nothing and does not recurse:
 * it counts the items still to read. Bytes it cannot walk (truncated, the unused tag 0xc1) are left to the
 * decoder, which throws on them.
 */

import { NOT_CANONICAL, scanUtf8 } from './msgpack-scan.ts';

/** `stringItem` results that end the walk. */
const STOP = -1;
const BAD_UTF8 = -2;

/** Payload sizes of the fixed-width tags 0xc0..0xdf that carry no length field. */
// prettier-ignore
const FIXED_PAYLOAD: Readonly<Record<number, number>> = {
  0xc0: 0, 0xc2: 0, 0xc3: 0, // nil, false, true
  0xca: 4, 0xcb: 8, // float32, float64
  0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8, // uint8..64
  0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8, // int8..64
  0xd4: 2, 0xd5: 3, 0xd6: 5, 0xd7: 9, 0xd8: 17, // fixext 1..16: type byte + data
};

/** Width of the length field of bin, ext, str, array and map tags. */
// prettier-ignore
const LENGTH_WIDTH: Readonly<Record<number, number>> = {
  0xc4: 1, 0xc5: 2, 0xc6: 4, // bin8/16/32
  0xc7: 1, 0xc8: 2, 0xc9: 4, // ext8/16/32
  0xd9: 1, 0xda: 2, 0xdb: 4, // str8/16/32
  0xdc: 2, 0xdd: 4, 0xde: 2, 0xdf: 4, // array16/32, map16/32
};

/** false when a string in `bytes` is not strict UTF-8 (RFC 3629); true otherwise, including for bytes it cannot walk. */
export function stringsAreUtf8(bytes: Uint8Array): boolean {
  const end = bytes.length;
  let pos = 0;
  let items = 1;
  while (items > 0 && pos < end) {
    items--;
    const tag = bytes[pos]!;
    if (tag < 0x80 || tag >= 0xe0) {
      pos++;
    } else if (tag < 0x90) {
      items += 2 * (tag & 0x0f);
      pos++;
    } else if (tag < 0xa0) {
      items += tag & 0x0f;
      pos++;
    } else if (tag < 0xc0) {
      const next = stringItem(bytes, pos + 1, tag & 0x1f);
      if (next < 0) return next !== BAD_UTF8;
      pos = next;
    } else if (FIXED_PAYLOAD[tag] !== undefined) {
      pos += 1 + FIXED_PAYLOAD[tag];
    } else {
      const width = LENGTH_WIDTH[tag];
      if (width === undefined || pos + 1 + width > end) return true; // 0xc1, or cut short: the decoder throws
      const length = readLength(bytes, pos + 1, width);
      pos += 1 + width;
      if (tag >= 0xde)
        items += 2 * length; // map16/32
      else if (tag >= 0xdc)
        items += length; // array16/32
      else if (tag < 0xc7)
        pos += length; // bin
      else if (tag < 0xca)
        pos += 1 + length; // ext: a type byte, then the data
      else {
        const next = stringItem(bytes, pos, length); // str8/16/32
        if (next < 0) return next !== BAD_UTF8;
        pos = next;
      }
    }
  }
  return true;
}

/** The offset past a string of `length` bytes at `start`, `BAD_UTF8`, or `STOP` when it is cut short. */
function stringItem(bytes: Uint8Array, start: number, length: number): number {
  if (start + length > bytes.length) return STOP;
  return scanUtf8(bytes, start, length, bytes.length) === NOT_CANONICAL ? BAD_UTF8 : start + length;
}

function readLength(bytes: Uint8Array, pos: number, width: number): number {
  let length = 0;
  for (let index = 0; index < width; index++) length = length * 256 + bytes[pos + index]!;
  return length;
}
