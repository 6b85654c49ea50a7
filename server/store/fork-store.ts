import type { SessionEvent, ValidatedDraft } from '../../shared/index.ts';

/** How deep forks may nest: a fork of a fork … at most this many levels below a session that is no fork. */
export const MAX_FORK_DEPTH = 32;

/**
 * Where a fork comes from: its events 0..`forkSeq` are `parent`'s (read there, never copied), its own start at
 * `forkSeq + 1`. Fixed when the fork is made, for as long as the fork's epoch lives.
 */
export interface Lineage {
  readonly parent: string;
  readonly forkSeq: number;
  /** The parent's epoch when the fork was made: the prefix is that epoch's events (checked on every read). */
  readonly parentEpoch: string;
  /** 1 for a fork of a session that is no fork, parent's depth + 1 for a fork of a fork (≤ `MAX_FORK_DEPTH`). */
  readonly depth: number;
}

export interface ForkRequest {
  /** The session forked (it must exist, in `parentEpoch`, with a head ≥ `atSeq`). */
  readonly parentId: string;
  readonly parentEpoch: string;
  /** The last seq of the parent that the fork shares. */
  readonly atSeq: number;
  /** The new session (it must not exist: no epoch, no events). */
  readonly childId: string;
  /** Events the fork starts with after the prefix, seqs `atSeq + 1`..: the repair of an open turn, or none. */
  readonly events: readonly ValidatedDraft[];
}

export type ForkResult =
  | {
      /** The fork exists now, with a new epoch; `events` are its first own events (the repair), committed with it. */
      readonly status: 'forked';
      readonly epoch: string;
      readonly headSeq: number;
      readonly lineage: Lineage;
      readonly events: readonly SessionEvent[];
    }
  | {
      /**
       * `childId` exists already (it has an epoch or events): nothing written. `lineage` is its own when it is a fork
       * (a retried fork finds the fork it made: same parent, seq and parent epoch).
       */
      readonly status: 'target-exists';
      readonly epoch: string;
      readonly headSeq: number;
      readonly lineage: Lineage | undefined;
    }
  | {
      /** The parent is no longer in `parentEpoch` (deleted, its data lost) or holds no `atSeq`: nothing written. */
      readonly status: 'parent-changed';
      readonly epoch: string;
      readonly headSeq: number;
    }
  | {
      /** The fork would be deeper than `MAX_FORK_DEPTH`: nothing written. */
      readonly status: 'too-deep';
      readonly depth: number;
    };

/** A session's lineage as read with its epoch (one atomic read). */
export interface LineageRead {
  /** The session's epoch; undefined when it has none. */
  readonly epoch: string | undefined;
  /** Undefined when the session is no fork (or has no epoch). */
  readonly lineage: Lineage | undefined;
}

/**
 * Forks (docs/storage.md#forks): a new session that shares another's events up to a seq without copying them. The
 * engine writes the fork's own keys in one atomic step (its epoch, its base `atSeq + 1`, its lineage and its first
 * events) and records the fork in the parent's set of forks in another (on a Cluster the two may be in different
 * slots): first the parent's, which re-checks the parent's epoch and head, so a parent is never deleted under a fork
 * being made. Reading a fork's prefix from its parent is the lineage layer's job (server/store/lineage/), not the
 * engine's: an engine's reads below a fork's base fail as they do below any base.
 */
export interface ForkStore {
  /** Make the fork (see `ForkResult`). */
  create(request: ForkRequest): Promise<ForkResult>;
  /** The session's lineage and epoch, read together. Never writes. */
  lineage(sessionId: string): Promise<LineageRead>;
  /** Ids of the session's forks (direct children only), in no particular order. */
  list(sessionId: string): Promise<string[]>;
}

/**
 * `deleteSession` of a session that has forks: refused, nothing deleted (the forks read their prefix from it). Delete
 * the forks first. Wire code `HAS_FORKS`.
 */
export class StoreHasForksError extends Error {
  override readonly name = 'StoreHasForksError';
  readonly code = 'HAS_FORKS';
  readonly forks: number;

  constructor(sessionId: string, forks: number) {
    super(`session ${sessionId} has ${forks} fork(s) reading their prefix from it: delete them first`);
    this.forks = forks;
  }
}

/**
 * A fork's prefix cannot be read: its parent is gone or no longer in the epoch the fork was made from (its data was
 * lost). Wire code `FORK_PARENT_CHANGED`.
 */
export class StoreForkParentError extends Error {
  override readonly name = 'StoreForkParentError';
  readonly code = 'FORK_PARENT_CHANGED';
}
