import { isSeq } from '../../shared/protocol-parse.ts';
import { StoreRequestError } from '../store/event-store.ts';
import { validateSessionId } from '../store/session-id.ts';
import type { ArchiveListOptions, ArchiveSegment } from './archive-backend.ts';

/** Bounds every backend enforces on what it is handed (a bad argument is a `StoreRequestError`, nothing written). */
export const ARCHIVE_LIMITS = {
  /** Longest epoch (the hub's are UUIDs, 36 characters). */
  maxEpochLength: 128,
  /** Most events in one `append` call. */
  maxAppendEvents: 1_000_000,
  /** Largest stored body (the hub's events are far smaller; a segment stores lengths as 32-bit integers). */
  maxBodyBytes: 64 * 1024 * 1024,
  /** Most events in one `read` page. */
  maxReadLimit: 100_000,
  /** Most sessions in one `list` page. */
  maxListLimit: 10_000,
  /** Most bodies replaced in one `rewrite`. */
  maxRewriteEvents: 1_000_000,
} as const;

function checkEpoch(epoch: unknown): asserts epoch is string {
  if (typeof epoch !== 'string' || epoch.length === 0 || epoch.length > ARCHIVE_LIMITS.maxEpochLength) {
    throw new StoreRequestError(`an epoch must be a string of 1 to ${ARCHIVE_LIMITS.maxEpochLength} characters`);
  }
}

function checkTime(time: unknown): void {
  if (typeof time !== 'number' || !Number.isSafeInteger(time) || time < 0) {
    throw new StoreRequestError('a commit time must be a non-negative integer (epoch ms)');
  }
}

function checkBody(body: unknown): void {
  if (!(body instanceof Uint8Array)) throw new StoreRequestError('a stored body must be a Uint8Array');
  if (body.byteLength > ARCHIVE_LIMITS.maxBodyBytes) {
    throw new StoreRequestError(`a stored body must be at most ${ARCHIVE_LIMITS.maxBodyBytes} bytes`);
  }
}

/** Throws `StoreRequestError` unless `segment` is well-formed (ids, seqs, as many times as bodies, bounds). */
export function checkSegment(segment: ArchiveSegment): void {
  validateSessionId(segment.sessionId);
  checkEpoch(segment.epoch);
  if (!isSeq(segment.firstSeq)) throw new StoreRequestError('firstSeq must be a non-negative safe integer');
  const { bodies, times } = segment;
  if (!Array.isArray(bodies) || bodies.length === 0) throw new StoreRequestError('a segment needs at least one event');
  if (bodies.length > ARCHIVE_LIMITS.maxAppendEvents) {
    throw new StoreRequestError(`a segment holds at most ${ARCHIVE_LIMITS.maxAppendEvents} events`);
  }
  if (!Array.isArray(times) || times.length !== bodies.length) {
    throw new StoreRequestError('a segment needs one commit time per body');
  }
  if (!isSeq(segment.firstSeq + bodies.length)) throw new StoreRequestError('the segment runs past the largest seq');
  for (const body of bodies) checkBody(body);
  for (const time of times) checkTime(time);
}

/** Throws `StoreRequestError` unless the read's arguments are well-formed. */
export function checkRead(sessionId: string, fromSeq: number, limit: number, maxBytes: number): void {
  validateSessionId(sessionId);
  if (!isSeq(fromSeq)) throw new StoreRequestError('fromSeq must be a non-negative safe integer');
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > ARCHIVE_LIMITS.maxReadLimit) {
    throw new StoreRequestError(`limit must be an integer from 1 to ${ARCHIVE_LIMITS.maxReadLimit}`);
  }
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    throw new StoreRequestError('maxBytes must be a positive integer');
  }
}

/** Throws `StoreRequestError` unless the list options are well-formed. */
export function checkList(options: ArchiveListOptions): void {
  const { prefix, after, limit } = options;
  if (prefix !== undefined && (typeof prefix !== 'string' || prefix.length > 1024)) {
    throw new StoreRequestError('prefix must be a string of at most 1024 characters');
  }
  if (after !== undefined && (typeof after !== 'string' || after.length > 1024)) {
    throw new StoreRequestError('after must be a string of at most 1024 characters');
  }
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > ARCHIVE_LIMITS.maxListLimit) {
    throw new StoreRequestError(`limit must be an integer from 1 to ${ARCHIVE_LIMITS.maxListLimit}`);
  }
}

/** Throws `StoreRequestError` unless the rewrite's arguments are well-formed. */
export function checkRewrite(
  sessionId: string,
  epoch: string,
  bodies: ReadonlyMap<number, Uint8Array>,
  nextEpoch: string,
): void {
  validateSessionId(sessionId);
  checkEpoch(epoch);
  checkEpoch(nextEpoch);
  if (!(bodies instanceof Map) || (bodies.size === 0 && nextEpoch === epoch)) {
    throw new StoreRequestError('a rewrite needs a non-empty map of seq to body, or a new epoch');
  }
  if (bodies.size > ARCHIVE_LIMITS.maxRewriteEvents) {
    throw new StoreRequestError(`a rewrite replaces at most ${ARCHIVE_LIMITS.maxRewriteEvents} bodies`);
  }
  for (const [seq, body] of bodies) {
    if (!isSeq(seq)) throw new StoreRequestError('a rewritten seq must be a non-negative safe integer');
    checkBody(body);
  }
}

/** Compares session ids in the archive's id order: the UTF-8 bytes' order (code point order; PostgreSQL's "C"). */
export function compareIds(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
