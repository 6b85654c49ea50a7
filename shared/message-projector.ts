import { SessionLogError } from './errors.ts';
import { isSurfaceType } from './event-types.ts';
import type { DerivedMessage, SessionEvent } from './events.ts';
import { GrowableFenwick } from './fenwick.ts';
import { projectEvent } from './project-event.ts';
import { SurfaceIndex } from './surface-index.ts';

/**
 * What one event changed in the derived message list, in `Array.prototype.splice` terms:
 * - `unchanged`: nothing (non-surface events, and surface nodes that project to nothing);
 * - `appended`: `messages` were pushed at `index` (= the old length);
 * - `replaced`: `deleteCount` messages from `start` were replaced by `messages` (0 or 1 of them).
 */
export type ProjectionChange =
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'appended'; readonly index: number; readonly messages: readonly DerivedMessage[] }
  | {
      readonly kind: 'replaced';
      readonly start: number;
      readonly deleteCount: number;
      readonly messages: readonly DerivedMessage[];
    };

const UNCHANGED: ProjectionChange = Object.freeze({ kind: 'unchanged' });
const NO_MESSAGES: readonly DerivedMessage[] = Object.freeze([]);

function fail(code: 'INVALID_EVENT' | 'SURFACE_VIOLATION', seq: number, reason: string): never {
  throw new SessionLogError(code, `event ${seq}: ${reason}`, { seq });
}

/**
 * Incremental projection of a committed log to the messages the model sees. Feed it every event in seq order
 * (from seq 0); it projects each surface node once, when it first appears, and a replacement touches only the
 * nodes it covers. Finding a node's message index costs O(log n) (a Fenwick tree of per-slot message counts over
 * the surface, whose slot order is surface order), so a 1-for-1 replacement (tool-result prune, system prompt
 * change) costs the same however long the log is.
 *
 * It expects a valid log (as committed by a `Session` or the hub) and checks only what it needs: seq order, and
 * that a replacement's range is on the surface (else `SessionLogError`, and nothing changes).
 */
export class MessageProjector {
  readonly #surface = new SurfaceIndex();
  /** Per surface slot: 1 when its node projects to a message. */
  readonly #counts = new GrowableFenwick();
  readonly #slotCounts: number[] = [];
  readonly #messages: DerivedMessage[] = [];
  #length = 0;

  /** The current derived messages (a live view: it changes as events are applied; copy it to keep it). */
  get messages(): readonly DerivedMessage[] {
    return this.#messages;
  }

  /** Number of events applied (= the seq the next event must have). */
  get length(): number {
    return this.#length;
  }

  /** Applies the next committed event and returns what changed in `messages`. */
  apply(event: SessionEvent): ProjectionChange {
    const seq = event.seq;
    if (seq !== this.#length) fail('INVALID_EVENT', seq, `expected seq ${this.#length}`);
    if (!isSurfaceType(event.type)) {
      this.#length++;
      return UNCHANGED;
    }
    const op = event.surfaceOp;
    if (op === undefined) fail('INVALID_EVENT', seq, 'a surface event must carry its surfaceOp');
    if (op === 'append') return this.#append(event);
    const startSlot = this.#surface.slotOf(op.startSeq);
    const endSlot = this.#surface.slotOf(op.endSeq);
    if (startSlot < 0 || endSlot < 0 || startSlot > endSlot) {
      fail('SURFACE_VIOLATION', seq, `replace range ${op.startSeq}..${op.endSeq} is not on the surface in order`);
    }
    return this.#replace(event, startSlot, endSlot);
  }

  /** Applies events in order; returns the current `messages`. */
  applyAll(events: Iterable<SessionEvent>): readonly DerivedMessage[] {
    for (const event of events) this.apply(event);
    return this.#messages;
  }

  #append(event: SessionEvent): ProjectionChange {
    this.#surface.append(event.seq);
    this.#length++;
    const message = projectEvent(event);
    this.#counts.push(message === null ? 0 : 1);
    this.#slotCounts.push(message === null ? 0 : 1);
    if (message === null) return UNCHANGED;
    const index = this.#messages.length;
    this.#messages.push(message);
    return { kind: 'appended', index, messages: [message] };
  }

  #replace(event: SessionEvent, startSlot: number, endSlot: number): ProjectionChange {
    const counts = this.#counts;
    const slotCounts = this.#slotCounts;
    const start = counts.prefixSum(startSlot);
    let deleteCount = 0;
    this.#surface.replace(startSlot, endSlot, event.seq, (slot) => {
      const count = slotCounts[slot]!;
      if (count === 0) return;
      deleteCount += count;
      if (slot === startSlot) return;
      slotCounts[slot] = 0;
      counts.add(slot, -count);
    });
    this.#length++;
    const message = projectEvent(event);
    const newCount = message === null ? 0 : 1;
    const oldCount = slotCounts[startSlot]!;
    if (newCount !== oldCount) {
      slotCounts[startSlot] = newCount;
      counts.add(startSlot, newCount - oldCount);
    }
    if (message === null) {
      if (deleteCount === 0) return UNCHANGED;
      this.#messages.splice(start, deleteCount);
      return { kind: 'replaced', start, deleteCount, messages: NO_MESSAGES };
    }
    if (deleteCount === 1) this.#messages[start] = message;
    else this.#messages.splice(start, deleteCount, message);
    return { kind: 'replaced', start, deleteCount, messages: [message] };
  }
}
