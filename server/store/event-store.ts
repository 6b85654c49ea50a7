import type { PresenceStore } from './presence-store.ts';
import type { StoreCounters } from '../metrics.ts';

import type { SnapshotStore } from './snapshot-store.ts';
import type { RetentionStore } from './retention-store.ts';
import type { ArchiveLeaseStore } from './archive-lease.ts';
import type { RestoreStore } from './restore-store.ts';
import type { TrimRequest, TrimResult } from './trim.ts';
import type { IdempotencyPruneRequest, IdempotencyPruneResult } from './idempotency-prune.ts';
import type { MetadataStore, SessionMetadata } from './metadata-store.ts';
import type { RedactionStore } from './redaction-store.ts';
import type { ForkStore } from './fork-store.ts';
import type { SessionEvent, ValidatedDraft } from '../../shared/index.ts';

/** An event that passed validation against the session at `expectedSeq` (`Session.check`): only seq and time are missing. */
export type { ValidatedDraft } from '../../shared/index.ts';

/**
 * The epoch of a session that has none: nothing was ever written to it, or it was deleted (or its data lost). A
 * session gets its epoch with its first events; a read never creates one.
 */
export const NO_EPOCH = '';

export interface SessionHead {
  /** Identity of the session's stored data; changes when the data was lost. `NO_EPOCH` when it has none. */
  readonly epoch: string;
  /** Seq of the last event, -1 when the session is empty. */
  readonly headSeq: number;
  /**
   * The first seq the log holds, present only when events were trimmed from it (`EventStore.trim`): seqs below it
   * are gone from the store (reads of them throw `StoreTrimmedError`). Absent: the log holds every seq from 0.
   */
  readonly firstSeq?: number;
}

export interface CommitRequest {
  readonly sessionId: string;
  /** The commit succeeds only if the session's next seq is still this (optimistic concurrency). */
  readonly expectedSeq: number;
  /**
   * The commit succeeds only if the session's epoch is still this one (the epoch the batch was validated
   * against); on a mismatch the answer is `conflict` with the current epoch. Omitted or `NO_EPOCH`: the epoch is not
   * checked (a batch validated against a session without an epoch is positioned by `expectedSeq` alone).
   */
  readonly expectedEpoch?: string;
  readonly events: readonly ValidatedDraft[];
  /** Dedupe key kept for the session's lifetime (or, once archived, the idempotency window: idempotency-prune.ts). */
  readonly idempotencyKey?: string;
}

export type CommitResult =
  | {
      readonly status: 'committed';
      readonly epoch: string;
      /** The committed events, with seq and time. */
      readonly events: readonly SessionEvent[];
    }
  | {
      /** The idempotency key had committed before: nothing was written; these are the original seqs. */
      readonly status: 'duplicate';
      readonly epoch: string;
      readonly firstSeq: number;
      readonly lastSeq: number;
      readonly time: number;
    }
  | {
      /** The head moved, or the epoch is not `expectedEpoch`: nothing was written. */
      readonly status: 'conflict';
      readonly epoch: string;
      readonly headSeq: number;
    }
  | {
      /**
       * The idempotency key had committed before with a DIFFERENT batch (other types, data or surface ops):
       * nothing was written. `firstSeq`/`lastSeq` name the batch the key belongs to. Wire code
       * `IDEMPOTENCY_MISMATCH`.
       */
      readonly status: 'idempotency-mismatch';
      readonly epoch: string;
      readonly firstSeq: number;
      readonly lastSeq: number;
    };

/** One append inside a group commit: its events and its own idempotency key. */
export interface CommitBatch {
  readonly events: readonly ValidatedDraft[];
  /** Dedupe key kept for the session's lifetime; distinct within one group. */
  readonly idempotencyKey?: string;
}

/**
 * Several appends of one session committed in one atomic step (group commit): the batches get contiguous seqs
 * in the given order, one commit time and one notification, all or none. Each batch keeps its own idempotency
 * key, so each can be answered (and retried) on its own.
 */
export interface GroupCommitRequest {
  readonly sessionId: string;
  /** The group succeeds only if the session's next seq is still this (the first batch's first seq). */
  readonly expectedSeq: number;
  /** As in `CommitRequest`: the group succeeds only in this epoch. Omitted: the epoch is not checked. */
  readonly expectedEpoch?: string;
  readonly batches: readonly CommitBatch[];
  /** Import mode: the commit time to store (epoch ms, checked by the caller). Omitted: the store's clock. */
  readonly time?: number;
}

/** What an idempotency key remembers: the batch it committed, and whether that batch had the same content. */
export interface KnownKey {
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly time: number;
  /** False when the key committed a different batch (other types, data or surface ops). */
  readonly sameBatch: boolean;
}

export type GroupCommitResult =
  | {
      readonly status: 'committed';
      readonly epoch: string;
      /** Every batch's committed events, in order: batch i starts after the events of batches 0..i-1. */
      readonly events: readonly SessionEvent[];
    }
  | {
      /** The head moved, or the epoch is not `expectedEpoch`: nothing was written. */
      readonly status: 'conflict';
      readonly epoch: string;
      readonly headSeq: number;
    }
  | {
      /**
       * At least one batch's idempotency key had committed before: nothing was written. `keys[i]` is what batch
       * i's key committed, undefined for the batches whose key is new (or that have none).
       */
      readonly status: 'keys-known';
      readonly epoch: string;
      readonly keys: readonly (KnownKey | undefined)[];
    };

/** Which of some appends' idempotency keys a session knows (see `EventStore.lookupKeys`). */
export interface KeyLookupRequest {
  readonly sessionId: string;
  /** Appends as they would be committed: `keys[i]` answers `batches[i]` (undefined when it has no key). */
  readonly batches: readonly CommitBatch[];
}

export interface KeyLookup {
  /** The session's epoch; undefined when it has none (nothing was ever written, or it was deleted). */
  readonly epoch: string | undefined;
  /** What each batch's key committed, undefined when the key is new (or the batch has none). */
  readonly keys: readonly (KnownKey | undefined)[];
}

/** Committed events of one session, as every hub node sees them (order by seq; may arrive with gaps). */
export interface CommittedBatch {
  readonly sessionId: string;
  readonly epoch: string;
  readonly events: readonly SessionEvent[];
}

/**
 * A page of a session's events as the store keeps them, read atomically with their epoch: for a reader that
 * forwards the events without turning them into objects (the hub's catch-up). Event `i` has seq `firstSeq + i`,
 * commit time `times[i]` and stored body `bodies[i]`.
 */
export interface StoredPage {
  /** The session's epoch at the time of the read; undefined when the session has none (and the page is empty). */
  readonly epoch: string | undefined;
  /** Seq of the first event: the read's `fromSeq` (seqs are contiguous, checked by the store). */
  readonly firstSeq: number;
  /**
   * Each event's body as stored: the msgpack array `[type, data]`, `[type, data, surfaceOp]` or
   * `[type, data, surfaceOp | nil, sourceEventSeqs]` (`codec/event-codec.ts`). Returned as it is, not decoded:
   * whoever reads a body verifies it (`codec/stored-events.ts`, or `codec/encoded-page.ts`, which scans and splices it),
   * and a bad one throws `StoreDataError` there.
   */
  readonly bodies: readonly Uint8Array[];
  /** Each event's commit time (epoch ms). */
  readonly times: readonly number[];
  /**
   * True when the read stopped early for bytes (`readStoredPage`'s `maxBytes`): more events follow within its
   * `limit`, so a short page is not the end of the log. Absent or false otherwise.
   */
  readonly truncated?: boolean;
}

export interface StoreWatchHandlers {
  /** Events committed by any node. Batches of one session arrive in commit order but may skip (missed notice). */
  onCommitted(batch: CommittedBatch): void;
  /**
   * Notifications may have been missed (e.g. the store connection dropped and came back): every watcher
   * should re-read its session from its last seq.
   */
  onResync(): void;
  /** The session's metadata changed (any node): the whole metadata after the change (see `MetadataStore`). */
  onMetadata?(metadata: SessionMetadata): void;
}

/**
 * The storage seam of the hub. Engines: `redis` (production) and `memory` (embedded, one process, nothing
 * persisted). Every engine passes the one conformance suite in test/store.
 *
 * Errors: an engine that cannot reach its backend rejects with `StoreUnavailableError`; nothing is half-written.
 */
export interface EventStore {
  readonly engine: 'redis' | 'memory';
  /** Who watches which session, across the nodes that share this store (see presence-store.ts). */
  readonly presence: PresenceStore;
  /** Projection snapshots of the sessions, kept beside them and deleted with them (see snapshot-store.ts). */
  readonly snapshots: SnapshotStore;
  /** Title, labels, creation and lineage of the sessions, kept beside them and deleted with them (metadata-store.ts). */
  readonly metadata: MetadataStore;
  /** Retention: expiring whole sessions, their tombstones, the sweep lease (see retention-store.ts). */
  readonly retention: RetentionStore;
  /** Redaction: events' data replaced by placeholders, audited, in one atomic step (see redaction-store.ts). */
  readonly redactions: RedactionStore;
  /** Forks: sessions that share another's events up to a seq without copying them (see fork-store.ts). */
  readonly forks: ForkStore;
  /** One archiver per session across the nodes: a lease with an expiry, held by a token (see archive-lease.ts). */
  readonly archiveLease: ArchiveLeaseStore;
  /** Putting an archived prefix back in front of the hot log: a stage built beside it, then one swap (restore-store.ts). */
  readonly restore: RestoreStore;
  /** Head and epoch of a session (an unknown session is empty, with `NO_EPOCH`). Never writes anything. */
  head(sessionId: string): Promise<SessionHead>;
  /**
   * Append a validated batch atomically: all events or none, contiguous seqs, one commit time. A session without an
   * epoch gets a new random one with these events (a refused commit creates nothing).
   */
  commit(request: CommitRequest): Promise<CommitResult>;
  /**
   * Append several validated batches (appends) of one session in one atomic step, each with its own idempotency
   * key: `commit` is the group of one. Duplicate keys within the group are a `StoreRequestError`.
   */
  commitGroup(request: GroupCommitRequest): Promise<GroupCommitResult>;
  /**
   * Whether the batches' idempotency keys committed before, and with the same content (`sameBatch`), as
   * `commitGroup` would answer `keys-known`, without writing anything (no epoch is created). For a retried append
   * that no longer validates at the current head.
   */
  lookupKeys(request: KeyLookupRequest): Promise<KeyLookup>;
  /**
   * Up to `limit` events with seq ≥ `fromSeq`, ascending, as the log holds them without its epoch: also the events
   * of a log whose epoch key is gone (which `readStoredPage` reads as empty; docs/storage.md). Readers that follow a
   * session read pages (`readStoredPage`) instead. `fromSeq` below a trimmed log's first seq: `StoreTrimmedError`.
   */
  read(sessionId: string, fromSeq: number, limit: number): Promise<readonly SessionEvent[]>;
  /**
   * The store's one page read: up to `limit` events with seq ≥ `fromSeq` as stored (each one's seq, commit time
   * and stored body) with the epoch they belong to, in one atomic step, so that a caller positioned in one epoch can
   * tell that the events belong to another one (the session was deleted and rewritten). Never creates an epoch. The
   * store verifies everything but the bodies (contiguous seqs from `fromSeq`, the fields, the time); the bodies are
   * what it holds (see `StoredPage.bodies`). The seam knows nothing of the wire or of decoding: `codec/stored-events.ts`
   * turns the page into events (`readEventPage`), `codec/encoded-page.ts` into msgpack events for frames.
   * `fromSeq` below the first seq of a trimmed log (of a session with an epoch): `StoreTrimmedError` (`GONE`).
   *
   * `maxBytes` bounds the page by bytes: its bodies take at most `maxBytes` together, except that a page holds at
   * least one event (whatever its size); a page cut short for bytes has `truncated` set. The Redis engine never
   * receives a reply much larger than that either (docs/storage.md, "Reads bounded by bytes"). Omitted: by count
   * only.
   */
  readStoredPage(sessionId: string, fromSeq: number, limit: number, maxBytes?: number): Promise<StoredPage>;
  /**
   * Remove the events below `beforeSeq` from the session's log, in one atomic step, only in the request's epoch
   * (trim.ts): for the archive (archive, then trim) and retention. Seqs, head and epoch stay; idempotency keys are
   * kept (a retried append whose events were trimmed is answered as committed, `sameBatch` true, since its events
   * can no longer be compared) until `pruneIdempotencyKeys` drops them. Reads below the new first seq throw `StoreTrimmedError` (code `GONE`). Trimming
   * below the current first seq changes nothing. Watchers are not told: no event they follow changes.
   */
  trim(request: TrimRequest): Promise<TrimResult>;
  /**
   * One bounded step of the idempotency window (idempotency-prune.ts): drops the session's idempotency keys whose
   * events all lie below the hot log's first seq and that were committed before `olderThan`; never the key of an
   * event the hot log holds, never the base. A session without keys answers cursor `''`, removed 0.
   */
  pruneIdempotencyKeys(request: IdempotencyPruneRequest): Promise<IdempotencyPruneResult>;
  /** Start receiving committed batches for a session; returns an idempotent stop function. */
  watch(sessionId: string, handlers: StoreWatchHandlers): () => void;
  /** Resolves when the backend answers (readiness). */
  ping(): Promise<void>;
  /**
   * Call `listener` each time the store's connection to its backend comes back after it was lost. The backend may
   * have lost writes meanwhile (a failover to a lagging replica, a restart before fsync) while keeping epochs, so
   * whatever a node derived from earlier reads must be re-read. Returns a stop function. The memory engine never
   * loses its connection and never calls it.
   */
  onReconnect(listener: () => void): () => void;
  /** Counts the engine keeps itself, for the hub's metrics (the Redis engine's raw-read fallbacks). Optional. */
  readonly counters?: StoreCounters;
  /**
   * Admin: ids of the sessions that exist (have an epoch) and start with `prefix` (default: all), in no particular
   * order. Walks the whole store (the Redis engine filters server-side with SCAN MATCH).
   */
  listSessions(prefix?: string): Promise<string[]>;
  /**
   * Admin: delete a session's events, epoch, idempotency keys, snapshot and first seq. Its watchers (on every node) get
   * `onResync()`; it has no epoch until its next commit creates a new one, so clients holding a position are reset.
   * Resolves true when something was deleted.
   */
  deleteSession(sessionId: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The backend cannot be reached. Nothing is ever half-written (a commit is all or nothing). When the connection
 * dropped after a commit was sent, the commit may or may not have happened (`maybeCommitted`): retrying with the
 * same idempotency key is safe either way (it answers `duplicate` with the original seqs).
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  readonly code = 'STORE_UNAVAILABLE';
  /** True when a commit reached the wire before the connection failed: its outcome is unknown. */
  readonly maybeCommitted: boolean;

  constructor(message = 'the store is unavailable', options: { cause?: unknown; maybeCommitted?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.maybeCommitted = options.maybeCommitted ?? false;
  }
}

/** A store call with invalid arguments (bad session id, negative seq, empty batch...). Wire code `BAD_REQUEST`. */
export class StoreRequestError extends Error {
  override readonly name = 'StoreRequestError';
  readonly code = 'BAD_REQUEST';
}

/**
 * Stored data failed verification on read (undecodable entry, gap in seqs, foreign value types). The store never
 * returns such data. Wire code `INTERNAL`.
 */
export class StoreDataError extends Error {
  override readonly name = 'StoreDataError';
  readonly code = 'DATA_CORRUPTED';
}
