/** msgpack headers written by hand where frames are built from encoded parts (the SDK's appends, the hub's pages). */
/** Bytes of the msgpack array header for `count` elements (fixarray, array 16 or array 32). */
export function arrayHeaderLength(count: number): number {
  return count < 0x10 ? 1 : count < 0x10000 ? 3 : 5;
}

/** Write msgpack type byte `tag` and a big-endian 16-bit `value` at `pos`; returns the offset past them. */
export function writeTag16(target: Uint8Array, pos: number, tag: number, value: number): number {
  target[pos] = tag;
  target[pos + 1] = value >> 8;
  target[pos + 2] = value & 0xff;
  return pos + 3;
}

/** Write msgpack type byte `tag` and a big-endian 32-bit `value` at `pos`; returns the offset past them. */
export function writeTag32(target: Uint8Array, pos: number, tag: number, value: number): number {
  target[pos] = tag;
  target[pos + 1] = value >>> 24;
  target[pos + 2] = (value >>> 16) & 0xff;
  target[pos + 3] = (value >>> 8) & 0xff;
  target[pos + 4] = value & 0xff;
  return pos + 5;
}

/** Write the msgpack array header for `count` elements at `pos`; returns the offset past it. */
export function writeArrayHeader(target: Uint8Array, pos: number, count: number): number {
  if (count < 0x10) {
    target[pos] = 0x90 | count;
    return pos + 1;
  }
  return count < 0x10000 ? writeTag16(target, pos, 0xdc, count) : writeTag32(target, pos, 0xdd, count);
}

/** The msgpack array header for `count` elements: prefix it to `count` concatenated bodies to get one array. */
export function msgpackArrayHeader(count: number): Uint8Array {
  const header = new Uint8Array(arrayHeaderLength(count));
  writeArrayHeader(header, 0, count);
  return header;
}
