/**
 * Putting a session's archived prefix back in front of its hot log (the archive's `restore`, server/archive/
 * restore-run.ts; docs/storage.md#restoring-an-archived-prefix). A hot log only grows at its end (a Redis stream
 * takes no entry below its last id), so the whole log is built again beside it, in a STAGE: the archived events,
 * then a copy of the hot ones, written in bounded calls (`stage`); then one atomic step (`swap`) checks that the
 * hot log is still in the epoch the copy was made in, copies the few events appended meanwhile (at most
 * `maxCopy`), and puts the stage in place of the log, with its first seq as the log's first seq. Seqs, times,
 * stored bodies, epoch and idempotency keys never change; an append that raced the copy is in the swapped log.
 *
 * The Redis engine's stage is a stream beside the log (`{<id>}:restore`, same hash tag), with an expiry renewed by
 * each `stage` call, so a restore that died leaves nothing behind for longer than that; the memory engine's is
 * kept in its backend. A deleted session loses its stage with it.
 */
export interface RestoreStore {
  /**
   * Appends events to the session's stage. `firstSeq` must be the stage's next seq (an empty stage starts at
   * `firstSeq`): else `gap`, nothing written. The stage lapses `ttlMs` after the last call.
   */
  stage(request: RestoreStageRequest): Promise<RestoreStageResult>;
  /** Puts the stage in place of the hot log in one atomic step (see `RestoreSwapResult`). */
  swap(request: RestoreSwapRequest): Promise<RestoreSwapResult>;
  /** Drops the session's stage. True when it had one. */
  discard(sessionId: string): Promise<boolean>;
}

export interface RestoreStageRequest {
  readonly sessionId: string;
  /** Seq of `bodies[0]`. */
  readonly firstSeq: number;
  /** Stored bodies (`StoredPage.bodies`), at least one, at most `MAX_RESTORE_STAGE_EVENTS`. */
  readonly bodies: readonly Uint8Array[];
  /** Commit time (epoch ms) of each body. */
  readonly times: readonly number[];
  /** How long the stage lasts after this call (ms). */
  readonly ttlMs: number;
}

/** `staged`: the events were added. `gap`: `firstSeq` is not the stage's next seq; nothing written. */
export interface RestoreStageResult {
  readonly status: 'staged' | 'gap';
  /** The stage's next seq after the call. */
  readonly nextSeq: number;
}

export interface RestoreSwapRequest {
  readonly sessionId: string;
  /** The epoch of the hot log the stage copies: else `conflict`, nothing changed. */
  readonly epoch: string;
  /** Most hot events appended since the copy that the swap copies itself: more is `behind`, nothing changed. */
  readonly maxCopy: number;
}

/**
 * What a swap did; `epoch`, `firstSeq` and `headSeq` are the hot log's after the call.
 * - `swapped`: the hot log is the stage (plus the `copied` events appended meanwhile); it starts at `firstSeq`.
 * - `behind`: more than `maxCopy` events were appended since the copy: stage from `stagedNext`, then swap again.
 * - `conflict`: the session is not in `epoch` (deleted, rewritten, redacted) or has none.
 * - `gap`: the stage does not continue into the hot log (empty, starts after the hot log's first seq, ends before
 *   it, or goes past its head).
 * Only `swapped` changes anything.
 */
export interface RestoreSwapResult {
  readonly status: 'swapped' | 'behind' | 'conflict' | 'gap';
  readonly epoch: string;
  readonly firstSeq: number;
  readonly headSeq: number;
  /** The stage's next seq before the swap (0 when it is empty). */
  readonly stagedNext: number;
  /** Events the swap copied from the hot log (appended since the copy). */
  readonly copied: number;
}

/** Most events in one `stage` call (the restore stages archive and hot pages of a few thousand). */
export const MAX_RESTORE_STAGE_EVENTS = 10_000;
/** Most events a swap copies itself (`maxCopy`): a script of bounded length. */
export const MAX_RESTORE_SWAP_COPY = 10_000;
/** Longest stage expiry (a day). */
export const MAX_RESTORE_STAGE_TTL_MS = 86_400_000;
