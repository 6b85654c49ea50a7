/**
 * The idempotency window (`EventStore.pruneIdempotencyKeys`, docs/storage.md#the-idempotency-window): once a
 * session's prefix is archived and trimmed, the idempotency keys of its archived appends are the only thing it still
 * keeps in the hot store per append. A prune drops those whose events all lie below the hot log's first seq (trimmed)
 * AND whose commit time is before `olderThan`; never a key of an event the hot log still holds, never the base. A
 * retry of a dropped key's append is no longer recognised: it commits anew (if it still validates at the head).
 *
 * Bounded: one call looks at about `count` keys (Redis `HSCAN` semantics: start with cursor `''`, pass each
 * answer's `cursor` back, `''` again means the walk is done; a key may be looked at twice, one added during a walk
 * may be missed). Each call is atomic on its own; removing a stale key twice is harmless, so a walk needs no lease.
 */
export interface IdempotencyPruneRequest {
  readonly sessionId: string;
  /** Drop only keys committed before this time (epoch ms, the `time` the key remembers): now − the window. */
  readonly olderThan: number;
  /** `''` to start; then the previous answer's `cursor`. */
  readonly cursor: string;
  /** About how many keys to look at (1 to `MAX_PRUNE_COUNT`). Default `DEFAULT_PRUNE_COUNT`. */
  readonly count?: number;
}

export interface IdempotencyPruneResult {
  /** `''`: the walk is done. */
  readonly cursor: string;
  /** Keys this call dropped. */
  readonly removed: number;
  /**
   * The latest commit time (epoch ms) among the keys of trimmed events this call kept for being too recent (at or
   * after `olderThan`); 0 when it kept none. A walk is worth running again once that time is older than the window.
   */
  readonly youngestKept: number;
}

/** Keys looked at per call by default (one Redis script call: a bounded piece of work). */
export const DEFAULT_PRUNE_COUNT = 500;
/** The most keys a request may ask to look at per call. */
export const MAX_PRUNE_COUNT = 5000;

/** What a whole prune walk did: the keys it dropped, the latest commit time among those it kept (0: none). */
export type IdempotencyPruneWalk = Omit<IdempotencyPruneResult, 'cursor'>;

/**
 * Runs a whole prune walk over a session's idempotency keys (one bounded call after another). `store` is anything
 * with `pruneIdempotencyKeys` (an `EventStore`).
 */
export async function pruneIdempotencyWindow(
  store: { pruneIdempotencyKeys(request: IdempotencyPruneRequest): Promise<IdempotencyPruneResult> },
  sessionId: string,
  olderThan: number,
): Promise<IdempotencyPruneWalk> {
  let removed = 0;
  let youngestKept = 0;
  let cursor = '';
  do {
    const page = await store.pruneIdempotencyKeys({ sessionId, olderThan, cursor });
    removed += page.removed;
    youngestKept = Math.max(youngestKept, page.youngestKept);
    cursor = page.cursor;
  } while (cursor !== '');
  return { removed, youngestKept };
}
