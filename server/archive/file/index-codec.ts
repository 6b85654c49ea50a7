import { createHash } from 'node:crypto';
import { StoreDataError } from '../../store/event-store.ts';
import type { ArchivedSession } from '../archive-backend.ts';

/** The first bytes of an index file (format version 1). */
const MAGIC = Buffer.from('SHARIDX1', 'latin1');
const HASH_BYTES = 32;
const HEADER_BYTES = MAGIC.byteLength + HASH_BYTES;

/** What the index says of one segment file. */
export interface SegmentEntry {
  readonly name: string;
  readonly firstSeq: number;
  readonly count: number;
  /** Sum of its bodies' sizes. */
  readonly bytes: number;
  /** SHA-256 (hex) of its compressed payload. */
  readonly sha256: string;
}

/** A session's index: what is archived and in which segment files, in seq order. */
export interface SessionIndex extends ArchivedSession {
  readonly segments: readonly SegmentEntry[];
}

/** The index file: `SHARIDX1`, the SHA-256 of the rest, then the index as UTF-8 JSON. */
export function encodeIndex(index: SessionIndex): Buffer {
  const json = Buffer.from(JSON.stringify(index), 'utf8');
  const hash = createHash('sha256').update(json).digest();
  return Buffer.concat([MAGIC, hash, json]);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function segmentEntry(value: unknown): SegmentEntry | undefined {
  if (!isRecord(value)) return undefined;
  const { name, firstSeq, count, bytes, sha256 } = value;
  if (typeof name !== 'string' || !/^s\d{16}-[0-9a-f]+\.seg$/.test(name)) return undefined;
  if (!isCount(firstSeq) || !isCount(count) || count === 0 || !isCount(bytes)) return undefined;
  if (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256)) return undefined;
  return { name, firstSeq, count, bytes, sha256 };
}

/**
 * Decodes and verifies an index file of `sessionId`: header, checksum, fields, and that its segments cover
 * `startSeq .. nextSeq - 1` without gap or overlap and add up to `bytes`. Throws `StoreDataError` otherwise.
 */
export function decodeIndex(file: Buffer, sessionId: string): SessionIndex {
  const bad = (why: string): StoreDataError =>
    new StoreDataError(`archive index of session ${JSON.stringify(sessionId)}: ${why}`);
  if (file.byteLength < HEADER_BYTES || !file.subarray(0, MAGIC.byteLength).equals(MAGIC)) {
    throw bad('not an index file (bad header)');
  }
  const json = file.subarray(HEADER_BYTES);
  if (!createHash('sha256').update(json).digest().equals(file.subarray(MAGIC.byteLength, HEADER_BYTES))) {
    throw bad('checksum mismatch');
  }
  let value: unknown;
  try {
    value = JSON.parse(json.toString('utf8'));
  } catch {
    throw bad('not JSON');
  }
  if (!isRecord(value)) throw bad('not an object');
  const { epoch, startSeq, nextSeq, bytes, firstTime, lastTime, segments } = value;
  if (value['sessionId'] !== sessionId) throw bad('it belongs to another session');
  if (typeof epoch !== 'string' || epoch.length === 0) throw bad('bad epoch');
  if (!isCount(startSeq) || !isCount(nextSeq) || nextSeq <= startSeq || !isCount(bytes)) throw bad('bad seqs');
  if (!isCount(firstTime) || !isCount(lastTime) || !Array.isArray(segments)) throw bad('bad fields');
  const entries: SegmentEntry[] = [];
  let seq = startSeq;
  let total = 0;
  for (const item of segments) {
    const entry = segmentEntry(item);
    if (entry === undefined || entry.firstSeq !== seq) throw bad('bad segment list');
    entries.push(entry);
    seq += entry.count;
    total += entry.bytes;
  }
  if (seq !== nextSeq || total !== bytes) throw bad('segments do not cover the archived seqs');
  return { sessionId, epoch, startSeq, nextSeq, bytes, firstTime, lastTime, segments: entries };
}

/** The index's public part. */
export function describeIndex(index: SessionIndex): ArchivedSession {
  const { sessionId, epoch, startSeq, nextSeq, bytes, firstTime, lastTime } = index;
  return { sessionId, epoch, startSeq, nextSeq, bytes, firstTime, lastTime };
}

/** The position in `segments` of the one holding `seq` (which must be archived). */
export function segmentAt(segments: readonly SegmentEntry[], seq: number): number {
  let low = 0;
  let high = segments.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (segments[middle]!.firstSeq <= seq) low = middle;
    else high = middle - 1;
  }
  return low;
}
