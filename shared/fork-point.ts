import { isKnownEvent } from './event-types.ts';
import type { KnownEventDraft, SessionEvent } from './events.ts';
import { repairInterrupted } from './lifecycle.ts';

/**
 * Where a fork at a seq stands, decided from the events up to that seq (the fork rule, docs/session-log.md#forks):
 *
 * - `boundary`: no turn is open after the seq; the child is the prefix as it is;
 * - `inside-turn`: turn `turn` is open; a child made there must be closed by `repair` (what `repairInterrupted`
 *   gives the prefix: an error result for each unanswered call, `step/end`, `turn/end` interrupted), or refused;
 * - `need-earlier`: the events given do not reach back far enough to tell (see `forkPoint`).
 */
export type ForkPoint =
  | { readonly kind: 'boundary' }
  | { readonly kind: 'inside-turn'; readonly turn: number; readonly repair: readonly KnownEventDraft[] }
  | { readonly kind: 'need-earlier' };

/** True for the events that decide whether a turn is open: append-origin `turn/start` and `turn/end`. */
function isTurnMarker(event: SessionEvent): boolean {
  return isKnownEvent(event) && (event.type === 'turn/start' || event.type === 'turn/end');
}

/**
 * The fork rule at the last event of `tail`: `tail` is a contiguous run of a log's events ending at the fork seq,
 * not necessarily from seq 0. The last `turn/start` or `turn/end` at or before the fork seq decides: none (and the
 * tail starts at seq 0: no turn was ever opened) or a `turn/end` is a boundary; a `turn/start` opens a turn whose
 * repair is computed from the events since it (the same drafts `repairInterrupted` gives the whole prefix: a
 * `turn/start` resets every open call and step). When the tail holds no marker and does not start at seq 0, the
 * answer is `need-earlier`: read earlier events and ask again. So a caller reads back only to the last marker,
 * O(events since the last turn boundary), never the whole log.
 *
 * An empty tail is `need-earlier` (there is no fork seq to judge).
 */
export function forkPoint(tail: readonly SessionEvent[]): ForkPoint {
  const first = tail[0];
  if (first === undefined) return { kind: 'need-earlier' };
  let index = tail.length - 1;
  while (index >= 0 && !isTurnMarker(tail[index]!)) index--;
  if (index < 0) return first.seq === 0 ? { kind: 'boundary' } : { kind: 'need-earlier' };
  const marker = tail[index]!;
  if (marker.type === 'turn/end') return { kind: 'boundary' };
  const open = tail.slice(index);
  const repair = repairInterrupted(open);
  const turn = (marker.data as { readonly turn: number }).turn;
  return repair.length === 0 ? { kind: 'boundary' } : { kind: 'inside-turn', turn, repair };
}
