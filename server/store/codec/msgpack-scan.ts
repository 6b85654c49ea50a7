/**
 * A validating scan of msgpack bytes that builds nothing: it tells whether a value is exactly what msgpackr
 * (`useRecords: false`, the encoding of stored bodies and of the wire) writes for a lossless-JSON value, and where
 * it ends. Such bytes decode to lossless JSON, and decoding and re-encoding them gives the same bytes back, so a
 * reader may forward them as they are (docs/storage.md, "Verification on read").
 *
 * "Exactly what msgpackr writes":
 * - integers of the 32-bit ranges in their shortest form (positive fixint up to 0x7f, `uint8/16/32`, negative
 *   fixint, `int8/16/32`), every other number as a `float64` that is finite and, if integral, a safe integer;
 * - strings as well-formed UTF-8 (no surrogates, no overlong forms) behind the shortest header;
 * - arrays behind the shortest header; objects always as `map16` (msgpackr's plain-object form) with string keys,
 *   no key twice, and the keys in the order a JavaScript object enumerates them (integer-like keys first,
 *   ascending);
 * - nil, true, false.
 * Anything else (binary, extensions, `float32`, 64-bit integers, `fixmap`, non-shortest headers, -0, NaN, ...)
 * is "not canonical": the caller decodes such a value the slow way, which verifies it and throws on real garbage.
 */

import { isUtf8 } from 'node:buffer';

/** Returned by the scan functions when the bytes are not canonical lossless JSON. */
export const NOT_CANONICAL = -1;

/** Deeper nesting is left to the slow path (the core accepts at most `MAX_JSON_DEPTH` = 1000 levels of data). */
const MAX_SCAN_DEPTH = 1100;

/** Maps with more keys are left to the slow path (the duplicate-key check here is quadratic). */
const MAX_SCAN_KEYS = 64;

const scratch = new Uint8Array(8);
const scratchView = new DataView(scratch.buffer);

/** Key offsets of the maps being scanned (a stack shared by the nesting levels), for the duplicate check. */
let keyStarts = new Int32Array(64);
let keyEnds = new Int32Array(64);
let keyTop = 0;

/** Scan the value at `pos` (bytes up to `end`); returns the offset just past it, or `NOT_CANONICAL`. */
export function scanJsonValue(bytes: Uint8Array, pos: number, end: number): number {
  keyTop = 0;
  return scanValue(bytes, pos, end, 0);
}

function readFloat64(bytes: Uint8Array, pos: number): number {
  for (let index = 0; index < 8; index++) scratch[index] = bytes[pos + index]!;
  return scratchView.getFloat64(0);
}

function readUint32(bytes: Uint8Array, pos: number): number {
  return bytes[pos]! * 0x1000000 + ((bytes[pos + 1]! << 16) | (bytes[pos + 2]! << 8) | bytes[pos + 3]!);
}

function readInt16(bytes: Uint8Array, pos: number): number {
  return ((bytes[pos]! << 24) | (bytes[pos + 1]! << 16)) >> 16;
}

/** Whether msgpackr writes the number `value` as a float64 (it writes every 32-bit integer as an integer). */
function isCanonicalFloat64(value: number): boolean {
  if (!Number.isFinite(value) || value >>> 0 === value || value >> 0 === value) return false;
  return !Number.isInteger(value) || Number.isSafeInteger(value);
}

function scanValue(bytes: Uint8Array, pos: number, end: number, depth: number): number {
  if (pos >= end) return NOT_CANONICAL;
  const tag = bytes[pos]!;
  if (tag < 0x80 || tag >= 0xe0) return pos + 1; // positive / negative fixint
  if (tag >= 0xa0 && tag < 0xc0) return scanUtf8(bytes, pos + 1, tag & 0x1f, end);
  if (tag >= 0x90 && tag < 0xa0) return scanArray(bytes, pos + 1, tag & 0x0f, end, depth);
  switch (tag) {
    case 0xc0: // nil
    case 0xc2: // false
    case 0xc3: // true
      return pos + 1;
    case 0xcc:
      return pos + 2 <= end && bytes[pos + 1]! >= 0x80 ? pos + 2 : NOT_CANONICAL;
    case 0xcd:
      return pos + 3 <= end && bytes[pos + 1]! > 0 ? pos + 3 : NOT_CANONICAL;
    case 0xce:
      return pos + 5 <= end && (bytes[pos + 1]! > 0 || bytes[pos + 2]! > 0) ? pos + 5 : NOT_CANONICAL;
    case 0xd0: // int8: msgpackr uses it for -0x80..-0x21 only
      return pos + 2 <= end && bytes[pos + 1]! >= 0x80 && bytes[pos + 1]! < 0xe0 ? pos + 2 : NOT_CANONICAL;
    case 0xd1:
      return pos + 3 <= end && readInt16(bytes, pos + 1) < -0x80 ? pos + 3 : NOT_CANONICAL;
    case 0xd2:
      return pos + 5 <= end && readInt32(bytes, pos + 1) < -0x8000 ? pos + 5 : NOT_CANONICAL;
    case 0xcb:
      return pos + 9 <= end && isCanonicalFloat64(readFloat64(bytes, pos + 1)) ? pos + 9 : NOT_CANONICAL;
    case 0xd9:
      return pos + 2 <= end && bytes[pos + 1]! >= 0x20 ? scanUtf8(bytes, pos + 2, bytes[pos + 1]!, end) : NOT_CANONICAL;
    case 0xda: {
      const length = pos + 3 <= end ? (bytes[pos + 1]! << 8) | bytes[pos + 2]! : 0;
      return length >= 0x100 ? scanUtf8(bytes, pos + 3, length, end) : NOT_CANONICAL;
    }
    case 0xdb: {
      const length = pos + 5 <= end ? readUint32(bytes, pos + 1) : 0;
      return length >= 0x10000 ? scanUtf8(bytes, pos + 5, length, end) : NOT_CANONICAL;
    }
    case 0xdc: {
      const count = pos + 3 <= end ? (bytes[pos + 1]! << 8) | bytes[pos + 2]! : 0;
      return count >= 0x10 ? scanArray(bytes, pos + 3, count, end, depth) : NOT_CANONICAL;
    }
    case 0xdd: {
      const count = pos + 5 <= end ? readUint32(bytes, pos + 1) : 0;
      return count >= 0x10000 ? scanArray(bytes, pos + 5, count, end, depth) : NOT_CANONICAL;
    }
    case 0xde:
      return pos + 3 <= end
        ? scanMap(bytes, pos + 3, (bytes[pos + 1]! << 8) | bytes[pos + 2]!, end, depth)
        : NOT_CANONICAL;
    default:
      return NOT_CANONICAL; // fixmap, map32, bin, ext, float32, 64-bit integers, 0xc1
  }
}

function readInt32(bytes: Uint8Array, pos: number): number {
  return (bytes[pos]! << 24) | (bytes[pos + 1]! << 16) | (bytes[pos + 2]! << 8) | bytes[pos + 3]!;
}

/**
 * Strings from this many bytes on are checked by Node's own validator (`buffer.isUtf8`, simdutf), shorter ones in
 * JavaScript. Measured (`node --import tsx`, one string at a time): 16 bytes 41 ns in JS against 110 ns native, 64
 * bytes 143 against 131 ns, 1 KiB 2.4 µs against 0.13 µs, 16 KiB 36 µs against 0.41 µs (ASCII; mixed scripts
 * 25 µs against 1.3 µs). Per catch-up page: `bench/page-splice.ts`.
 */
const NATIVE_UTF8_MIN_BYTES = 64;

/** Strict UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF) of `length` bytes at `pos`. */
export function scanUtf8(bytes: Uint8Array, pos: number, length: number, end: number): number {
  const stop = pos + length;
  if (stop > end) return NOT_CANONICAL;
  if (length < NATIVE_UTF8_MIN_BYTES) return scanUtf8InJs(bytes, pos, stop);
  return isUtf8(new Uint8Array(bytes.buffer, bytes.byteOffset + pos, length)) ? stop : NOT_CANONICAL;
}

/** `scanUtf8` in JavaScript over `pos`..`stop` (exported for the test that holds both paths to the WHATWG decoder). */
export function scanUtf8InJs(bytes: Uint8Array, pos: number, stop: number): number {
  let index = pos;
  while (index < stop && bytes[index]! < 0x80) index++; // ASCII, the common case
  while (index < stop) {
    const lead = bytes[index]!;
    if (lead < 0x80) {
      index++;
      continue;
    }
    if (lead < 0xc2) return NOT_CANONICAL; // a continuation byte, or an overlong 2-byte form
    if (lead < 0xe0) {
      if (index + 1 >= stop || (bytes[index + 1]! & 0xc0) !== 0x80) return NOT_CANONICAL;
      index += 2;
      continue;
    }
    if (lead < 0xf0) {
      if (index + 2 >= stop) return NOT_CANONICAL;
      const second = bytes[index + 1]!;
      if ((second & 0xc0) !== 0x80 || (bytes[index + 2]! & 0xc0) !== 0x80) return NOT_CANONICAL;
      if ((lead === 0xe0 && second < 0xa0) || (lead === 0xed && second >= 0xa0)) return NOT_CANONICAL;
      index += 3;
      continue;
    }
    if (lead < 0xf5) {
      if (index + 3 >= stop) return NOT_CANONICAL;
      const second = bytes[index + 1]!;
      if ((second & 0xc0) !== 0x80 || (bytes[index + 2]! & 0xc0) !== 0x80 || (bytes[index + 3]! & 0xc0) !== 0x80) {
        return NOT_CANONICAL;
      }
      if ((lead === 0xf0 && second < 0x90) || (lead === 0xf4 && second >= 0x90)) return NOT_CANONICAL;
      index += 4;
      continue;
    }
    return NOT_CANONICAL;
  }
  return stop;
}

function scanArray(bytes: Uint8Array, pos: number, count: number, end: number, depth: number): number {
  if (depth >= MAX_SCAN_DEPTH) return NOT_CANONICAL;
  let next = pos;
  for (let index = 0; index < count; index++) {
    next = scanValue(bytes, next, end, depth + 1);
    if (next < 0) return NOT_CANONICAL;
  }
  return next;
}

/**
 * The array index a key names for JavaScript's property order (a canonical decimal below 2^32 - 1), or -1 when it
 * is an ordinary string key.
 */
function arrayIndexOf(bytes: Uint8Array, start: number, stop: number): number {
  const length = stop - start;
  if (length === 0 || length > 10) return -1;
  const first = bytes[start]!;
  if (first < 0x30 || first > 0x39 || (first === 0x30 && length > 1)) return -1;
  let value = 0;
  for (let index = start; index < stop; index++) {
    const digit = bytes[index]! - 0x30;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value < 0xffffffff ? value : -1;
}

function sameBytes(bytes: Uint8Array, aStart: number, aEnd: number, bStart: number, bEnd: number): boolean {
  if (aEnd - aStart !== bEnd - bStart) return false;
  for (let offset = 0; offset < aEnd - aStart; offset++) {
    if (bytes[aStart + offset] !== bytes[bStart + offset]) return false;
  }
  return true;
}

function pushKey(start: number, stop: number): void {
  if (keyTop === keyStarts.length) {
    const starts = new Int32Array(keyTop * 2);
    const ends = new Int32Array(keyTop * 2);
    starts.set(keyStarts);
    ends.set(keyEnds);
    keyStarts = starts;
    keyEnds = ends;
  }
  keyStarts[keyTop] = start;
  keyEnds[keyTop] = stop;
  keyTop++;
}

/** Whether the string key [start, stop) equals one of the ordinary keys of this map seen so far. */
function isDuplicateKey(bytes: Uint8Array, base: number, start: number, stop: number): boolean {
  for (let index = base; index < keyTop; index++) {
    if (sameBytes(bytes, keyStarts[index]!, keyEnds[index]!, start, stop)) return true;
  }
  return false;
}

function scanMap(bytes: Uint8Array, pos: number, count: number, end: number, depth: number): number {
  if (depth >= MAX_SCAN_DEPTH || count > MAX_SCAN_KEYS) return NOT_CANONICAL; // the slow path takes big maps
  const base = keyTop;
  let lastIndex = -1;
  let ordinarySeen = false;
  let next = pos;
  for (let entry = 0; entry < count; entry++) {
    const start = keyStart(bytes, next, end);
    if (start < 0) return NOT_CANONICAL;
    const stop = scanUtf8(bytes, start, keyLength, end);
    if (stop < 0) return NOT_CANONICAL;
    const index = arrayIndexOf(bytes, start, stop);
    if (index >= 0) {
      // JavaScript enumerates integer-like keys first, ascending: other orders would not survive a round trip.
      if (ordinarySeen || index <= lastIndex) return NOT_CANONICAL;
      lastIndex = index;
    } else {
      if (isDuplicateKey(bytes, base, start, stop)) return NOT_CANONICAL;
      ordinarySeen = true;
      pushKey(start, stop);
    }
    next = scanValue(bytes, stop, end, depth + 1);
    if (next < 0) return NOT_CANONICAL;
  }
  keyTop = base;
  return next;
}

/** Length of the key whose header `keyStart` read last. */
let keyLength = 0;

/** Where the UTF-8 bytes of the canonical string key at `pos` start (length in `keyLength`), or `NOT_CANONICAL`. */
function keyStart(bytes: Uint8Array, pos: number, end: number): number {
  const tag = pos < end ? bytes[pos]! : 0;
  if (tag >= 0xa0 && tag < 0xc0) {
    keyLength = tag & 0x1f;
    return pos + 1;
  }
  if (tag === 0xd9 && pos + 2 <= end && bytes[pos + 1]! >= 0x20) {
    keyLength = bytes[pos + 1]!;
    return pos + 2;
  }
  if (tag === 0xda && pos + 3 <= end) {
    keyLength = (bytes[pos + 1]! << 8) | bytes[pos + 2]!;
    return keyLength >= 0x100 ? pos + 3 : NOT_CANONICAL;
  }
  if (tag === 0xdb && pos + 5 <= end) {
    keyLength = readUint32(bytes, pos + 1);
    return keyLength >= 0x10000 ? pos + 5 : NOT_CANONICAL;
  }
  return NOT_CANONICAL;
}

/**
 * Scan a seq (a non-negative safe integer) at `pos`, in msgpackr's form: positive fixint, `uint8/16/32`, or a
 * `float64` beyond 32 bits. Returns the offset past it or `NOT_CANONICAL`.
 */
export function scanSeq(bytes: Uint8Array, pos: number, end: number): number {
  if (pos >= end) return NOT_CANONICAL;
  const tag = bytes[pos]!;
  if (tag < 0x80) return pos + 1;
  if (tag === 0xcb) {
    if (pos + 9 > end) return NOT_CANONICAL;
    const value = readFloat64(bytes, pos + 1);
    return isCanonicalFloat64(value) && Number.isInteger(value) && value > 0 ? pos + 9 : NOT_CANONICAL;
  }
  return tag === 0xcc || tag === 0xcd || tag === 0xce ? scanValue(bytes, pos, end, 0) : NOT_CANONICAL;
}
