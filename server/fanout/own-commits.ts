import type { CommittedBatch, StoredPage } from '../store/event-store.ts';

/** Where a batch came from: the store's notifications and reads, or this node's append pipeline. */
export type BatchSource = 'store' | 'own';

/** A batch for the channel to process, in this order. */
export interface SourcedBatch {
  readonly batch: CommittedBatch;
  readonly source: BatchSource;
}

export function firstSeqOf(batch: CommittedBatch): number {
  return batch.events[0]?.seq ?? 0;
}

/**
 * An own commit ended (`batch`, undefined when nothing was committed), with `stillInFlight` own commits of the
 * session left: which of the store's notices held back meanwhile go now, and in which order with the batch (seq
 * order; the batch before its own echo, which is then dropped as already delivered), and which wait on (with a
 * later own commit in flight, only the notices up to this batch go: the rest may be its echo).
 */
export function releaseHeld(
  waiting: readonly CommittedBatch[],
  batch: CommittedBatch | undefined,
  stillInFlight: number,
): { readonly now: SourcedBatch[]; readonly later: CommittedBatch[] | undefined } {
  const lastSeq = batch?.events[batch.events.length - 1]?.seq;
  const goesNow = (notice: CommittedBatch): boolean =>
    stillInFlight === 0 ||
    (batch !== undefined && lastSeq !== undefined && notice.epoch === batch.epoch && firstSeqOf(notice) <= lastSeq);
  const held = waiting.filter(goesNow);
  const later = waiting.filter((notice) => !goesNow(notice));
  const now: SourcedBatch[] = held.map((notice) => ({ batch: notice, source: 'store' }));
  if (batch !== undefined) {
    const firstSeq = firstSeqOf(batch);
    const after = held.findIndex((notice) => notice.epoch === batch.epoch && firstSeqOf(notice) >= firstSeq);
    now.splice(after === -1 ? now.length : after, 0, { batch, source: 'own' });
  }
  return { now, later: later.length === 0 ? undefined : later };
}

/** `page` without its events after `lastSeq` (the page itself when it has none). */
export function pageUpTo(page: StoredPage, lastSeq: number): StoredPage {
  const keep = Math.max(0, Math.min(page.bodies.length, lastSeq - page.firstSeq + 1));
  if (keep === page.bodies.length) return page;
  // Short for the commits in flight, not for bytes: whatever follows is this node's own (not `truncated`).
  return {
    epoch: page.epoch,
    firstSeq: page.firstSeq,
    bodies: page.bodies.slice(0, keep),
    times: page.times.slice(0, keep),
  };
}
