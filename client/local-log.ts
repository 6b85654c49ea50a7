import type { DerivedMessage, SessionEvent } from '../shared/events.ts';
import { MessageProjector } from '../shared/index.ts';
import type { ProjectionChange } from '../shared/index.ts';

/** What `LocalLog.offer` did with an event. */
export type OfferResult =
  | { readonly kind: 'accepted'; readonly change: ProjectionChange }
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'gap'; readonly expectedSeq: number };

/**
 * A subscriber's local copy of a session log from `startSeq` on, and the messages derived from it.
 * Accepts only the next seq: older ones are duplicates, newer ones reveal a gap. Messages are updated with one
 * `MessageProjector` step per event; they are exact only when the copy starts at seq 0 (`complete`) — a copy
 * that starts later lacks the surface it would build on, so it derives nothing. A copy may start with events kept
 * from earlier (a resumed snapshot, already checked): they seed the projector like any other.
 */
export class LocalLog {
  #events: SessionEvent[] = [];
  #startSeq: number;
  #projector: MessageProjector | undefined;

  /** `base`: the projector of the log's seqs 0..startSeq-1 (a hub snapshot), so messages are exact from the start. */
  constructor(startSeq: number, seed: readonly SessionEvent[] = [], base?: MessageProjector) {
    this.#startSeq = startSeq;
    this.#projector = base ?? (startSeq === 0 ? new MessageProjector() : undefined);
    for (const event of seed) {
      if (this.offer(event).kind !== 'accepted') throw new RangeError(`seed event ${event.seq} is out of order`);
    }
  }

  /** The events held, ascending and contiguous from `startSeq`. */
  get events(): readonly SessionEvent[] {
    return this.#events;
  }

  /** First seq of the copy. */
  get startSeq(): number {
    return this.#startSeq;
  }

  /** Seq of the last event held (`startSeq - 1` when none). */
  get lastSeq(): number {
    return this.#startSeq + this.#events.length - 1;
  }

  /** True when the copy starts at seq 0 or on a snapshot, so `messages` equals `deriveMessages` of the log so far. */
  get complete(): boolean {
    return this.#projector !== undefined;
  }

  /** The derived messages (empty when not `complete`). */
  get messages(): readonly DerivedMessage[] {
    return this.#projector?.messages ?? [];
  }

  /** Take the next event if it is the next seq. */
  offer(event: SessionEvent): OfferResult {
    const expectedSeq = this.lastSeq + 1;
    if (event.seq < expectedSeq) return { kind: 'duplicate' };
    if (event.seq > expectedSeq) return { kind: 'gap', expectedSeq };
    const frozen = deepFreeze(event);
    const change: ProjectionChange = this.#projector?.apply(frozen) ?? { kind: 'unchanged' };
    this.#events.push(frozen);
    return { kind: 'accepted', change };
  }

  /** Start again after a hub snapshot: `base` is the projection of seqs 0..base.length-1; no events held. */
  adopt(base: MessageProjector): void {
    this.#events = [];
    this.#startSeq = base.length;
    this.#projector = base;
  }

  /** Forget everything and start again from seq 0 (the session's data was replaced: epoch changed). */
  reset(): void {
    this.#events = [];
    this.#startSeq = 0;
    this.#projector = new MessageProjector();
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
