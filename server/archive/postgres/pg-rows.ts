import { StoreDataError } from '../../store/event-store.ts';
import type { ArchivedSession } from '../archive-backend.ts';

/** A row of `session_hub_archive_sessions` as the driver returns it (bigint columns as strings). */
export interface SessionRow {
  readonly session_id: string;
  readonly epoch: string;
  readonly start_seq: string;
  readonly next_seq: string;
  readonly bytes: string;
  readonly first_time: string;
  readonly last_time: string;
}

/** A row of `session_hub_archive_segments` (metadata, and `data` when selected). */
export interface SegmentRow {
  readonly first_seq: string;
  readonly count: number;
  readonly bytes: string;
  readonly sha256: Buffer;
  readonly data?: Buffer;
}

export const SESSION_COLUMNS = 'session_id, epoch, start_seq, next_seq, bytes, first_time, last_time';

/** A bigint column's value as a number; anything else is corrupted data. */
export function toInt(value: unknown, what: string): number {
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number)) {
    throw new StoreDataError(`postgres archive: ${what} is not an integer`);
  }
  return number;
}

export function toArchivedSession(row: SessionRow): ArchivedSession {
  return {
    sessionId: row.session_id,
    epoch: row.epoch,
    startSeq: toInt(row.start_seq, 'start_seq'),
    nextSeq: toInt(row.next_seq, 'next_seq'),
    bytes: toInt(row.bytes, 'bytes'),
    firstTime: toInt(row.first_time, 'first_time'),
    lastTime: toInt(row.last_time, 'last_time'),
  };
}

/** What `decodeSegment` checks a row's data against. */
export function expectedOf(row: SegmentRow): { sha256: string; firstSeq: number; count: number; bytes: number } {
  return {
    sha256: row.sha256.toString('hex'),
    firstSeq: toInt(row.first_seq, 'first_seq'),
    count: row.count,
    bytes: toInt(row.bytes, 'bytes'),
  };
}
