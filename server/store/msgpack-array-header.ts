/** Bytes of the msgpack array header for `count` elements (fixarray, array 16 or array 32). */
export function arrayHeaderLength(count: number): number {
  return count < 0x10 ? 1 : count < 0x10000 ? 3 : 5;
}

/** Write the msgpack array header for `count` elements at `pos`; returns the offset past it. */
export function writeArrayHeader(target: Uint8Array, pos: number, count: number): number {
  if (count < 0x10) {
    target[pos] = 0x90 | count;
    return pos + 1;
  }
  if (count < 0x10000) {
    target[pos] = 0xdc;
    target[pos + 1] = count >> 8;
    target[pos + 2] = count & 0xff;
    return pos + 3;
  }
  target[pos] = 0xdd;
  target[pos + 1] = count >>> 24;
  target[pos + 2] = (count >>> 16) & 0xff;
  target[pos + 3] = (count >>> 8) & 0xff;
  target[pos + 4] = count & 0xff;
  return pos + 5;
}

/** The msgpack array header for `count` elements: prefix it to `count` concatenated bodies to get one array. */
export function msgpackArrayHeader(count: number): Buffer {
  const header = Buffer.alloc(arrayHeaderLength(count));
  writeArrayHeader(header, 0, count);
  return header;
}
