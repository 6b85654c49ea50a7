import type { StoredPage } from '../store/event-store.ts';

/**
 * The cold tier's seam (docs/storage.md#the-archive): where the prefix of a session's log goes once it is written
 * out of Redis. Two backends: `file:<dir>` (compressed, checksummed segment files, written to a temporary name and
 * renamed) and `postgres://…` (one schema, migrated at start). Both pass the one contract suite in test/archive.
 *
 * A session's archive holds the contiguous seqs `startSeq .. nextSeq - 1` of ONE epoch (`startSeq` is 0, or the
 * fork point + 1 of a fork; see docs/storage.md). Events keep their seq, commit time and stored body byte for byte
 * (`StoredPage.bodies`: the stored-body msgpack of codec/event-codec.ts), so a read from the archive returns exactly
 * what a read from Redis returned before the events were archived.
 *
 * Errors: a backend that cannot be reached or refuses a write (full disk, PostgreSQL down or read-only) rejects with
 * `ArchiveUnavailableError` and has written nothing readable; stored data that fails its checksum or does not decode
 * rejects with `StoreDataError` (code `DATA_CORRUPTED`) and is never returned as events.
 */
export interface ArchiveBackend {
  /** `file` or `postgres`. */
  readonly kind: ArchiveKind;
  /** Prepares the backend (creates the directory; creates or migrates the schema, with a version table). */
  open(): Promise<void>;
  /**
   * Appends a run of events to a session's archive, durably (fsync / COMMIT) before it resolves, all or nothing.
   * `segment.firstSeq` must be the archive's `nextSeq` (or, for a session with no archive, its `startSeq`), in the
   * same epoch, or start inside the archived run:
   * - a segment whose archived part is identical (bodies and times) writes only the seqs after `nextSeq`: a
   *   retried run resolves without writing (idempotent), and a retry that goes further than the last attempt
   *   appends the rest;
   * - a segment of another epoch than the archived one, that starts after `nextSeq` (a gap) or before `startSeq`,
   *   or whose archived part differs, rejects with `ArchiveConflictError` and writes nothing.
   */
  append(segment: ArchiveSegment): Promise<void>;
  /** What is archived of a session; undefined when nothing is. */
  describe(sessionId: string): Promise<ArchivedSession | undefined>;
  /**
   * Up to `limit` events with seq ≥ `fromSeq`, at most `maxBytes` of bodies (but at least one event), verified.
   * `fromSeq` below `startSeq` or at/after `nextSeq` returns an empty page; `epoch` is the archived epoch (undefined
   * when nothing is archived).
   */
  read(sessionId: string, fromSeq: number, limit: number, maxBytes: number): Promise<StoredPage>;
  /**
   * One page of the archived sessions whose id starts with `prefix`, after `after` (exclusive), in id order: the
   * order of the ids' UTF-8 bytes (code point order; PostgreSQL's `COLLATE "C"`).
   */
  list(options: ArchiveListOptions): Promise<ArchiveListPage>;
  /**
   * Replaces the stored bodies of some archived events (redaction), atomically: all or none; the old bytes are
   * gone from the backend's live data when it resolves (segment rewritten and renamed / rows updated). Seqs and
   * times are kept. Seqs not archived, or an archive not in `epoch`, reject with `ArchiveConflictError` and change
   * nothing. With `nextEpoch` the archive is in that epoch afterwards, in the same atomic step (the epoch a
   * redaction made from `epoch`: the archive goes on in it); `bodies` may then be empty (only the epoch changes).
   */
  rewrite(sessionId: string, epoch: string, bodies: ReadonlyMap<number, Uint8Array>, nextEpoch?: string): Promise<void>;
  /** Deletes a session's archive (retention, erasure, or an archive of a superseded epoch). True if it had one. */
  delete(sessionId: string): Promise<boolean>;
  close(): Promise<void>;
}

export type ArchiveKind = 'file' | 'postgres';

export interface ArchiveSegment {
  readonly sessionId: string;
  readonly epoch: string;
  /** Seq of `bodies[0]`. */
  readonly firstSeq: number;
  /** Stored bodies as `StoredPage.bodies` holds them; at least one. */
  readonly bodies: readonly Uint8Array[];
  /** Commit time (epoch ms) of each body. */
  readonly times: readonly number[];
}

export interface ArchivedSession {
  readonly sessionId: string;
  readonly epoch: string;
  /** First archived seq (0, or a fork's first own seq). */
  readonly startSeq: number;
  /** One past the last archived seq. */
  readonly nextSeq: number;
  /** Sum of the archived bodies' sizes. */
  readonly bytes: number;
  /** Commit time of the first and last archived events (epoch ms). */
  readonly firstTime: number;
  readonly lastTime: number;
}

export interface ArchiveListOptions {
  readonly prefix?: string;
  /** Exclusive lower bound on the session id (the previous page's `next`). */
  readonly after?: string;
  readonly limit: number;
}

export interface ArchiveListPage {
  readonly sessions: readonly ArchivedSession[];
  /** Pass as `after` for the next page; undefined on the last page. */
  readonly next?: string;
}

/** The archive cannot be reached or refused a write; nothing readable was written. Wire code `STORE_UNAVAILABLE`. */
export class ArchiveUnavailableError extends Error {
  override readonly name = 'ArchiveUnavailableError';
  readonly code = 'STORE_UNAVAILABLE';
}

/** A write that does not continue the archived run (other epoch, gap, different overlap). Nothing was written. */
export class ArchiveConflictError extends Error {
  override readonly name = 'ArchiveConflictError';
  readonly code = 'ARCHIVE_CONFLICT';
}
