import { NOT_CANONICAL, scanJsonValue, scanSeq, scanUtf8 } from './msgpack-scan.ts';
import { writeTag16, writeTag32 } from '../../../shared/msgpack-header.ts';

/**
 * The msgpack encoding of a stored event with its seq and time, spliced from its stored body instead of decoded
 * and encoded again.
 *
 * A stored body is a msgpack array `[type, data]`, `[type, data, surfaceOp]` or `[type, data, surfaceOp | nil,
 * sourceEventSeqs]` (server/store/codec/event-codec.ts). The encoded event (what msgpackr writes for the
 * `SessionEvent` the store returns) is a `map16` `{seq, type, time, data, surfaceOp?, sourceEventSeqs?}`: the
 * same msgpackr, so the type, data, surfaceOp and sourceEventSeqs bytes are the body's own whenever the body is
 * exactly what msgpackr writes (see msgpack-scan.ts). `scanEventBody` checks that and records where the parts
 * are; `writeSplicedEvent` writes the event. A body that does not scan is decoded the usual way instead.
 */

/** Marks per scanned body: end of type, end of data, start and end of surfaceOp, end of sourceEventSeqs. */
export const MARKS_PER_BODY = 5;

const REPLACE_HEAD = bytesOf([0xde, 0x00, 0x03, 0xa2], 'op', [0xa7], 'replace', [0xa8], 'startSeq');
const END_SEQ_KEY = bytesOf([0xa6], 'endSeq');
const APPEND = bytesOf([0xa6], 'append');

const KEY_SEQ = bytesOf([0xa3], 'seq');
const KEY_TYPE = bytesOf([0xa4], 'type');
const KEY_TIME = bytesOf([0xa4], 'time');
const KEY_DATA = bytesOf([0xa4], 'data');
const KEY_SURFACE_OP = bytesOf([0xa9], 'surfaceOp');
const KEY_SOURCE_EVENT_SEQS = bytesOf([0xaf], 'sourceEventSeqs');

function bytesOf(...parts: (number[] | string)[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((part) => (typeof part === 'string' ? [...Buffer.from(part)] : part)));
}

function matches(bytes: Uint8Array, pos: number, end: number, expected: Uint8Array): boolean {
  if (pos + expected.length > end) return false;
  for (let offset = 0; offset < expected.length; offset++) {
    if (bytes[pos + offset] !== expected[offset]) return false;
  }
  return true;
}

/** The end of a surfaceOp in the exact form the old path re-encodes (`'append'`, `{op, startSeq, endSeq}`). */
function scanSurfaceOp(bytes: Uint8Array, pos: number, end: number): number {
  if (matches(bytes, pos, end, APPEND)) return pos + APPEND.length;
  if (!matches(bytes, pos, end, REPLACE_HEAD)) return NOT_CANONICAL;
  const afterStart = scanSeq(bytes, pos + REPLACE_HEAD.length, end);
  if (afterStart < 0 || !matches(bytes, afterStart, end, END_SEQ_KEY)) return NOT_CANONICAL;
  return scanSeq(bytes, afterStart + END_SEQ_KEY.length, end);
}

function scanSeqList(bytes: Uint8Array, pos: number, end: number): number {
  if (pos >= end) return NOT_CANONICAL;
  const tag = bytes[pos]!;
  let count: number;
  let next: number;
  if (tag >= 0x90 && tag < 0xa0) {
    count = tag & 0x0f;
    next = pos + 1;
  } else if (tag === 0xdc && pos + 3 <= end) {
    count = (bytes[pos + 1]! << 8) | bytes[pos + 2]!;
    next = count >= 0x10 ? pos + 3 : NOT_CANONICAL;
  } else {
    return NOT_CANONICAL; // 0xdd: 65,536 seqs or more, left to the slow path
  }
  for (let index = 0; index < count && next >= 0; index++) next = scanSeq(bytes, next, end);
  return next;
}

/**
 * Check that `body` is a stored event body in exactly msgpackr's form, with lossless-JSON data, and record the
 * ends of its parts in `marks[at..at + MARKS_PER_BODY)`. False: decode it the usual way (which verifies it).
 */
export function scanEventBody(body: Uint8Array, marks: Int32Array, at: number): boolean {
  const end = body.length;
  const header = end > 0 ? body[0]! : 0;
  if (header < 0x92 || header > 0x94) return false;
  const items = header & 0x0f;
  // The type: a non-empty string.
  const typeTag = end > 1 ? body[1]! : 0;
  let typeEnd: number;
  if (typeTag > 0xa0 && typeTag < 0xc0) typeEnd = scanUtf8(body, 2, typeTag & 0x1f, end);
  else if (typeTag === 0xd9 && end > 2 && body[2]! >= 0x20) typeEnd = scanUtf8(body, 3, body[2]!, end);
  else if (typeTag === 0xda || typeTag === 0xdb) typeEnd = scanJsonValue(body, 1, end);
  else return false;
  if (typeEnd < 0) return false;
  const dataEnd = scanJsonValue(body, typeEnd, end);
  if (dataEnd < 0) return false;
  let opStart = dataEnd;
  let opEnd = dataEnd;
  let seqsEnd = dataEnd;
  if (items >= 3) {
    if (body[dataEnd] === 0xc0) {
      opStart = opEnd = dataEnd + 1; // nil: no surfaceOp
    } else {
      opEnd = scanSurfaceOp(body, dataEnd, end);
      if (opEnd < 0) return false;
    }
    seqsEnd = opEnd;
  }
  if (items === 4) {
    seqsEnd = scanSeqList(body, opEnd, end);
    if (seqsEnd < 0) return false;
  }
  if (seqsEnd !== end) return false;
  marks[at] = typeEnd;
  marks[at + 1] = dataEnd;
  marks[at + 2] = opStart;
  marks[at + 3] = opEnd;
  marks[at + 4] = seqsEnd;
  return true;
}

/** Bytes msgpackr writes for a non-negative safe integer. */
export function uintLength(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x100) return 2;
  if (value < 0x10000) return 3;
  if (value <= 0xffffffff) return 5;
  return 9;
}

const float = new Float64Array(1);
const floatBytes = new Uint8Array(float.buffer);
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Write a non-negative safe integer the way msgpackr does; returns the offset past it. */
export function writeUint(target: Uint8Array, pos: number, value: number): number {
  if (value < 0x80) {
    target[pos] = value;
    return pos + 1;
  }
  if (value < 0x100) {
    target[pos] = 0xcc;
    target[pos + 1] = value;
    return pos + 2;
  }
  if (value < 0x10000) return writeTag16(target, pos, 0xcd, value);
  if (value <= 0xffffffff) return writeTag32(target, pos, 0xce, value);
  target[pos] = 0xcb;
  float[0] = value;
  for (let index = 0; index < 8; index++) target[pos + 1 + index] = floatBytes[littleEndian ? 7 - index : index]!;
  return pos + 9;
}

/** The length of the wire form of a scanned body's event with this seq and time. */
export function splicedEventLength(marks: Int32Array, at: number, seq: number, time: number): number {
  const typeEnd = marks[at]!;
  const opStart = marks[at + 2]!;
  const opEnd = marks[at + 3]!;
  const seqsEnd = marks[at + 4]!;
  let length = 3 + KEY_SEQ.length + uintLength(seq) + KEY_TYPE.length + (typeEnd - 1);
  length += KEY_TIME.length + uintLength(time) + KEY_DATA.length + (marks[at + 1]! - typeEnd);
  if (opEnd > opStart) length += KEY_SURFACE_OP.length + (opEnd - opStart);
  if (seqsEnd > opEnd) length += KEY_SOURCE_EVENT_SEQS.length + (seqsEnd - opEnd);
  return length;
}

function copy(target: Buffer, pos: number, source: Uint8Array, start: number, end: number): number {
  if (end - start > 16) {
    target.set(source.subarray(start, end), pos);
    return pos + end - start;
  }
  let next = pos;
  for (let index = start; index < end; index++) target[next++] = source[index]!;
  return next;
}

/** Write the wire form of a scanned body's event (`splicedEventLength` bytes); returns the offset past it. */
export function writeSplicedEvent(
  target: Buffer,
  pos: number,
  body: Uint8Array,
  marks: Int32Array,
  at: number,
  seq: number,
  time: number,
): number {
  const typeEnd = marks[at]!;
  const dataEnd = marks[at + 1]!;
  const opStart = marks[at + 2]!;
  const opEnd = marks[at + 3]!;
  const seqsEnd = marks[at + 4]!;
  const hasOp = opEnd > opStart;
  const hasSeqs = seqsEnd > opEnd;
  target[pos] = 0xde;
  target[pos + 1] = 0;
  target[pos + 2] = 4 + (hasOp ? 1 : 0) + (hasSeqs ? 1 : 0);
  let next = copy(target, pos + 3, KEY_SEQ, 0, KEY_SEQ.length);
  next = writeUint(target, next, seq);
  next = copy(target, next, KEY_TYPE, 0, KEY_TYPE.length);
  next = copy(target, next, body, 1, typeEnd);
  next = copy(target, next, KEY_TIME, 0, KEY_TIME.length);
  next = writeUint(target, next, time);
  next = copy(target, next, KEY_DATA, 0, KEY_DATA.length);
  next = copy(target, next, body, typeEnd, dataEnd);
  if (hasOp) {
    next = copy(target, next, KEY_SURFACE_OP, 0, KEY_SURFACE_OP.length);
    next = copy(target, next, body, opStart, opEnd);
  }
  if (hasSeqs) {
    next = copy(target, next, KEY_SOURCE_EVENT_SEQS, 0, KEY_SOURCE_EVENT_SEQS.length);
    next = copy(target, next, body, opEnd, seqsEnd);
  }
  return next;
}
