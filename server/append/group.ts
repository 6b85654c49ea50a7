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
  };
  /** Only ready appends (authorized) may join a group. */
  readonly ready: boolean;
  /** JSON size of its events in bytes (measured when the append was taken, `assertDraftSizes`). */
  readonly bytes: number;
}

/** How big one group commit may get: never more than one append may hold. */
export interface GroupLimits {
  /** Most events in one group (the per-append limit). An append alone may always form a group. */
  readonly maxEvents: number;
  /** Most bytes (JSON of the events) in one group (the frame limit). An append alone may always form a group. */
  readonly maxBytes: number;
}

export type GroupPlan<T extends PlannedAppend> =
  /** Commit these appends together: `batches[i]` holds `items[i]`'s validated events; `time`: import mode. */
  | {
      readonly kind: 'group';
      readonly items: readonly T[];
      readonly batches: readonly CommitBatch[];
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
  const counts: number[] = [];
  const drafts: EventDraft[] = [];
  const keys = new Set<string>();
  let bytes = 0;
  for (const item of pending) {
    if (!item.ready) break;
    const { expectedSeq, idempotencyKey, events } = item.input;
    if (expectedSeq !== undefined && expectedSeq !== log.length + drafts.length) {
      if (items.length === 0) return { kind: 'seq-mismatch', item };
      break;
    }
    if (idempotencyKey !== undefined && keys.has(idempotencyKey)) break;
    if (items.length > 0 && item.input.time !== items[0]!.input.time) break;
    if (items.length > 0 && drafts.length + events.length > limits.maxEvents) break;
    if (items.length > 0 && bytes + item.bytes > limits.maxBytes) break;
    bytes += item.bytes;
    items.push(item);
    counts.push(events.length);
    for (const draft of events) drafts.push(draft);
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
    validated = log.checkDrafts(drafts.slice(0, sum(counts)), false);
  }

  const batches: CommitBatch[] = [];
  let offset = 0;
  items.forEach((item, index) => {
    const events = validated.slice(offset, offset + counts[index]!);
    offset += events.length;
    const key = item.input.idempotencyKey;
    batches.push(key === undefined ? { events } : { events, idempotencyKey: key });
  });
  return { kind: 'group', items, batches, time };
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
