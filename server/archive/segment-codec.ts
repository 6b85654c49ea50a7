import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants } from 'node:zlib';
import { StoreDataError } from '../store/event-store.ts';

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

/** The first bytes of a segment file (format version 1). */
const MAGIC = Buffer.from('SHARSEG1', 'latin1');
const HASH_BYTES = 32;
const HEADER_BYTES = MAGIC.byteLength + HASH_BYTES;
/** Brotli quality: 2 of 11, the fast end (on session logs faster than 0 and 1, and smaller; figures in docs/storage.md). */
export const BROTLI_QUALITY = 2;

/** Most events in one segment (a file, or a row). */
export const SEGMENT_MAX_EVENTS = 4096;
/** Most body bytes in one segment (a single larger body gets a segment of its own). */
export const SEGMENT_MAX_BYTES = 1024 * 1024;

/** A run of consecutive archived events, as one segment holds them. */
export interface SegmentEvents {
  readonly firstSeq: number;
  readonly bodies: readonly Uint8Array[];
  readonly times: readonly number[];
}

/** A segment file's bytes and what the index records of it. */
export interface EncodedSegment {
  readonly file: Buffer;
  /** SHA-256 (hex) of the compressed payload, also in the file's header. */
  readonly sha256: string;
  /** Sum of the bodies' sizes. */
  readonly bytes: number;
}

/**
 * Encodes a segment file: `SHARSEG1`, the SHA-256 of the rest, then the brotli-compressed payload: u32 count, f64
 * first seq, `count` f64 commit times, `count` u32 body lengths, the bodies (all little-endian).
 */
export async function encodeSegment(events: SegmentEvents): Promise<EncodedSegment> {
  const count = events.bodies.length;
  let bytes = 0;
  for (const body of events.bodies) bytes += body.byteLength;
  const fixed = 4 + 8 + count * 12;
  const payload = Buffer.allocUnsafe(fixed + bytes);
  payload.writeUInt32LE(count, 0);
  payload.writeDoubleLE(events.firstSeq, 4);
  let at = 12;
  for (const time of events.times) {
    payload.writeDoubleLE(time, at);
    at += 8;
  }
  for (const body of events.bodies) {
    payload.writeUInt32LE(body.byteLength, at);
    at += 4;
  }
  for (const body of events.bodies) {
    payload.set(body, at);
    at += body.byteLength;
  }
  const compressed = await compress(payload, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: payload.byteLength,
    },
  });
  const hash = createHash('sha256').update(compressed).digest();
  return { file: Buffer.concat([MAGIC, hash, compressed]), sha256: hash.toString('hex'), bytes };
}

/**
 * Decodes and verifies a segment file against what the index says of it (`expected`): the header, the checksum,
 * the payload's structure, its first seq and count. Throws `StoreDataError` on any mismatch; the bodies are views
 * of one decompressed buffer.
 */
export async function decodeSegment(
  file: Buffer,
  expected: { readonly sha256: string; readonly firstSeq: number; readonly count: number; readonly bytes: number },
  where: string,
): Promise<SegmentEvents> {
  const bad = (why: string): StoreDataError => new StoreDataError(`archive segment ${where}: ${why}`);
  if (file.byteLength < HEADER_BYTES || !file.subarray(0, MAGIC.byteLength).equals(MAGIC)) {
    throw bad('not a segment file (bad header)');
  }
  const compressed = file.subarray(HEADER_BYTES);
  const hash = createHash('sha256').update(compressed).digest();
  if (!hash.equals(file.subarray(MAGIC.byteLength, HEADER_BYTES)) || hash.toString('hex') !== expected.sha256) {
    throw bad('checksum mismatch');
  }
  let payload: Buffer;
  // One pass on the thread pool: with zlib's default 16 KiB chunks, each chunk of output is a round trip through the
  // main thread's event loop (a 4,096-event segment: ~40 of them, 5x slower than the decompression; docs/performance.md).
  const size = 4 + 8 + expected.count * 12 + expected.bytes;
  try {
    payload = await decompress(compressed, { maxOutputLength: size, chunkSize: Math.max(size, 64 * 1024) });
  } catch (error) {
    throw new StoreDataError(`archive segment ${where}: does not decompress`, { cause: error });
  }
  if (payload.byteLength < 12) throw bad('payload too short');
  const count = payload.readUInt32LE(0);
  const firstSeq = payload.readDoubleLE(4);
  const fixed = 12 + count * 12;
  if (count !== expected.count || firstSeq !== expected.firstSeq || payload.byteLength < fixed) {
    throw bad('payload does not match the index');
  }
  const times: number[] = new Array<number>(count);
  for (let index = 0; index < count; index++) times[index] = payload.readDoubleLE(12 + index * 8);
  const bodies: Uint8Array[] = new Array<Uint8Array>(count);
  let at = fixed;
  for (let index = 0; index < count; index++) {
    const length = payload.readUInt32LE(12 + count * 8 + index * 4);
    if (at + length > payload.byteLength) throw bad('body runs past the payload');
    bodies[index] = payload.subarray(at, at + length);
    at += length;
  }
  if (at !== payload.byteLength || at - fixed !== expected.bytes) throw bad('payload size does not match the index');
  return { firstSeq, bodies, times };
}

/** Cuts a run into segments of at most `SEGMENT_MAX_EVENTS` events and `SEGMENT_MAX_BYTES` of bodies (at least one event each). */
export function splitRun(run: SegmentEvents): SegmentEvents[] {
  const parts: SegmentEvents[] = [];
  let start = 0;
  while (start < run.bodies.length) {
    let end = start;
    let bytes = 0;
    while (end < run.bodies.length && end - start < SEGMENT_MAX_EVENTS) {
      const size = run.bodies[end]!.byteLength;
      if (end > start && bytes + size > SEGMENT_MAX_BYTES) break;
      bytes += size;
      end++;
    }
    parts.push({
      firstSeq: run.firstSeq + start,
      bodies: run.bodies.slice(start, end),
      times: run.times.slice(start, end),
    });
    start = end;
  }
  return parts;
}
