import type { ProjectorState } from '../../shared/index.ts';

/**
 * Projection snapshots of sessions (docs/session-log.md#snapshots): at seq N, the `MessageProjector` state of the
 * log's seqs 0..N, tied to the session's epoch and to the projector's format version. Each engine keeps the latest
 * snapshot per session beside the session (Redis: the same hash tag), deletes it with the session, and verifies it
 * on every read: a snapshot of another epoch, of another format version, past the head, or whose checksum fails is
 * never returned.
 */
export interface SessionSnapshot {
  /** The epoch of the log it was built from. */
  readonly epoch: string;
  /** The last seq it covers (its state is the projection of seqs 0..seq; `state.length` is seq + 1). */
  readonly seq: number;
  readonly state: ProjectorState;
}

/** Why a read found no snapshot to serve. */
export type SnapshotMissReason =
  /** None was ever written for this epoch (or the session has no epoch). */
  | 'missing'
  /** The stored one belongs to another epoch (the session was deleted, or its data lost, and rewritten). */
  | 'other-epoch'
  /** The stored one was written by another projector format version. */
  | 'other-version'
  /** The stored one covers seqs the log no longer has (writes lost in a failover). */
  | 'beyond-head';

export type SnapshotRead =
  | {
      readonly status: 'found';
      readonly snapshot: SessionSnapshot;
      /** The session's head, read in the same atomic step (≥ `snapshot.seq`). */
      readonly headSeq: number;
    }
  | {
      readonly status: 'none';
      readonly reason: SnapshotMissReason;
      /** The session's epoch (undefined when it has none) and head, read in the same atomic step. */
      readonly epoch: string | undefined;
      readonly headSeq: number;
    }
  | {
      /** The stored bytes fail their checksum or do not decode: rebuild it; never serve it. */
      readonly status: 'corrupt';
      readonly reason: string;
      readonly epoch: string | undefined;
      readonly headSeq: number;
    };

/**
 * - `written`: it is now the session's snapshot;
 * - `stale`: nothing written: the session's epoch is not the snapshot's, its head is before the snapshot's seq, or a
 *   snapshot of a later seq of the same epoch is already there.
 */
export type SnapshotPutResult = 'written' | 'stale';

export interface SnapshotStore {
  /** The session's snapshot, verified, with the session's epoch and head in the same atomic read. Never writes. */
  get(sessionId: string): Promise<SnapshotRead>;
  /** Writes `snapshot` as the session's snapshot, in one atomic step, only if it is still current (see the result). */
  put(sessionId: string, snapshot: SessionSnapshot): Promise<SnapshotPutResult>;
  /**
   * Takes the session's build lease for `ttlMs` if nobody holds it (Redis `SET NX PX`): one builder per session
   * across the nodes sharing the store. Resolves whether `owner` holds it now.
   */
  lease(sessionId: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease back if `owner` still holds it (a lease that lapsed is left to its new holder). */
  release(sessionId: string, owner: string): Promise<void>;
  /**
   * Adds `bytes` to what the session committed in `epoch` since its last byte trigger, counted across the nodes
   * (kept beside the snapshot, deleted with the session). Resolves true when that count reached `every` (it then
   * starts again from 0); false otherwise, and when the session is not in `epoch` (nothing is counted).
   */
  countBytes(sessionId: string, epoch: string, bytes: number, every: number): Promise<boolean>;
}
