import { SessionLogError, type EventDraft, type ValidatedDraft } from '../../shared/index.ts';
import type { LogValidator } from '../../shared/log-validator.ts';
import type { CommitBatch } from '../store/event-store.ts';
import { importTimeError } from './import-time.ts';

/** What a queued append carries into planning. */
export interface PlannedAppend {
  readonly input: {
    readonly events: readonly EventDraft[];
    readonly expectedSeq?: number | undefined;
    readonly idempotencyKey?: string | undefined;
    /** Import mode: the commit time to store (appends with different times never share a group). */
    readonly time?: number | undefined;
    /**
     * An event committed right behind the append's events, in the same commit (all or none), as a batch of its own
     * without an idempotency key: built from the seq the append's first event gets (e.g. the audit of a redaction
     * at append, which names the redacted seqs). It is no part of the append's ack or of its idempotency key.
     */
    readonly trailer?: AppendTrailer | undefined;
  };
  /** Only ready appends (authorized) may join a group. */
  readonly ready: boolean;
  /** JSON size of its events in bytes (measured when the append was taken, `assertDraftSizes`). */
  readonly bytes: number;
}

/** An event committed right behind an append's own, in the same commit (see `PlannedAppend.input.trailer`). */
export interface AppendTrailer {
  /** The event, from the seq the append's first event gets. */
  readonly build: (firstSeq: number) => EventDraft;
  /**
   * An upper bound of its JSON size (bytes), whatever seqs it gets: counted with the append's own bytes in the
   * group's byte limit, so a group with trailers stays within it like one without.
   */
  readonly maxBytes: number;
}

/** How big one group commit may get: never more than one append may hold. */
export interface GroupLimits {
  /** Most events in one group (the per-append limit). An append alone may always form a group. */
  readonly maxEvents: number;
  /**
   * Most bytes (JSON of the events, trailers counted at their `maxBytes`) in one group (the frame limit). An append
   * alone may always form a group.
   */
  readonly maxBytes: number;
}

export type GroupPlan<T extends PlannedAppend> =
  /**
   * Commit these appends together: `batches[i]` holds `items[i]`'s validated events, `trailers[i]` the validated
   * event of its `trailer` (undefined when it has none), committed right behind them; `time`: import mode.
   */
  | {
      readonly kind: 'group';
      readonly items: readonly T[];
      readonly batches: readonly CommitBatch[];
      readonly trailers: readonly (CommitBatch | undefined)[];
      readonly time: number | undefined;
    }
  /** The first append's `expectedSeq` is not the session's next seq. */
  | { readonly kind: 'seq-mismatch'; readonly item: T }
  /** The first append fails validation at the session's head. */
  | { readonly kind: 'invalid'; readonly item: T; readonly error: unknown };

/**
 * Choose the next group commit of a session: the longest run of queued appends, from the first one, that are
 * ready, agree with their `expectedSeq`, have distinct idempotency keys, fit the group limits and validate in
 * order against `log` (each seeing the ones before it). Pure: nothing is changed. The first append is
 * always decided (it forms a group alone, or is reported as a mismatch or invalid); the ones after the run wait
 * for the next plan, so an invalid append in the middle fails alone, at its own position.
 */
export function planGroup<T extends PlannedAppend>(
  pending: readonly T[],
  log: LogValidator,
  limits: GroupLimits,
  /** Import mode: the time of the session's last event (undefined when it is empty). */
  lastTime?: number,
): GroupPlan<T> {
  const items: T[] = [];
  /** Events of each item in `drafts`: its own, then its trailer's (0 or 1). */
  const counts: number[] = [];
  const trailing: number[] = [];
  const drafts: EventDraft[] = [];
  const keys = new Set<string>();
  let bytes = 0;
  for (const item of pending) {
    if (!item.ready) break;
    const { expectedSeq, idempotencyKey, events, trailer } = item.input;
    const count = events.length + (trailer === undefined ? 0 : 1);
    const itemBytes = item.bytes + (trailer?.maxBytes ?? 0);
    if (expectedSeq !== undefined && expectedSeq !== log.length + drafts.length) {
      if (items.length === 0) return { kind: 'seq-mismatch', item };
      break;
    }
    if (idempotencyKey !== undefined && keys.has(idempotencyKey)) break;
    if (items.length > 0 && item.input.time !== items[0]!.input.time) break;
    if (items.length > 0 && drafts.length + count > limits.maxEvents) break;
    if (items.length > 0 && bytes + itemBytes > limits.maxBytes) break;
    bytes += itemBytes;
    items.push(item);
    counts.push(count);
    trailing.push(count - events.length);
    const firstSeq = log.length + drafts.length;
    for (const draft of events) drafts.push(draft);
    if (trailer !== undefined) drafts.push(trailer.build(firstSeq));
    if (idempotencyKey !== undefined) keys.add(idempotencyKey);
  }
  const first = items[0];
  if (first === undefined) throw new Error('planGroup needs a ready append first in the queue');
  const time = first.input.time;
  const timeError = time === undefined ? undefined : importTimeError(time, lastTime);
  if (timeError !== undefined) return { kind: 'invalid', item: first, error: timeError };

  let validated: readonly ValidatedDraft[];
  try {
    validated = log.checkDrafts(drafts, false);
  } catch (error) {
    const failed = itemAtSeq(counts, error instanceof SessionLogError ? error.seq : undefined, log.length);
    if (failed === 0) return { kind: 'invalid', item: first, error };
    // The appends before the failing one are valid together: commit them now; it fails alone in the next plan.
    items.length = failed;
    counts.length = failed;
    trailing.length = failed;
    validated = log.checkDrafts(drafts.slice(0, sum(counts)), false);
  }

  const batches: CommitBatch[] = [];
  const trailers: (CommitBatch | undefined)[] = [];
  let offset = 0;
  items.forEach((item, index) => {
    const own = counts[index]! - trailing[index]!;
    const events = validated.slice(offset, offset + own);
    const trailer = validated.slice(offset + own, offset + counts[index]!);
    offset += counts[index]!;
    const key = item.input.idempotencyKey;
    batches.push(key === undefined ? { events } : { events, idempotencyKey: key });
    trailers.push(trailer.length === 0 ? undefined : { events: trailer });
  });
  return { kind: 'group', items, batches, trailers, time };
}

/** Index of the append holding the event that would get `seq` (0 when unknown). */
function itemAtSeq(counts: readonly number[], seq: number | undefined, head: number): number {
  if (seq === undefined) return 0;
  let end = head;
  for (let index = 0; index < counts.length; index++) {
    end += counts[index]!;
    if (seq < end) return index;
  }
  return 0;
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

/**
 * A group's batches as the store commits them: each append's batch, then its trailer's (if any). `owners[j]` is
 * the index of the append whose own batch `sent[j]` is, or -1 for a trailer (which has no idempotency key).
 */
export function storeBatches(
  batches: readonly CommitBatch[],
  trailers: readonly (CommitBatch | undefined)[],
): { readonly sent: readonly CommitBatch[]; readonly owners: readonly number[] } {
  const sent: CommitBatch[] = [];
  const owners: number[] = [];
  batches.forEach((batch, index) => {
    sent.push(batch);
    owners.push(index);
    const trailer = trailers[index];
    if (trailer === undefined) return;
    sent.push(trailer);
    owners.push(-1);
  });
  return { sent, owners };
}

/** The committed events of a group split by append: each one's own events, without its trailer's. */
export function ownEvents<E>(
  events: readonly E[],
  batches: readonly CommitBatch[],
  trailers: readonly (CommitBatch | undefined)[],
): E[][] {
  let offset = 0;
  return batches.map((batch, index) => {
    const mine = events.slice(offset, offset + batch.events.length);
    offset += batch.events.length + (trailers[index]?.events.length ?? 0);
    return mine;
  });
}
