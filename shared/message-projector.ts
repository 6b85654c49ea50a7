import { describeValue } from './describe-value.ts';
import { SessionLogError } from './errors.ts';
import { isSurfaceType } from './event-types.ts';
import type { DerivedMessage, SessionEvent } from './events.ts';
import { GrowableFenwick } from './fenwick.ts';
import { projectEvent } from './project-event.ts';
import { PROJECTOR_FORMAT_VERSION, checkProjectorState } from './projector-state.ts';
import type { ProjectorState } from './projector-state.ts';
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
  readonly #messages: DerivedMessage[] = [];
  #length = 0;
  /** Details of the last change (read by `apply` to build its change record). */
  #changeStart = 0;
  #changeDeleteCount = 0;
  #changeMessage: DerivedMessage | null = null;

  /** The current derived messages (a live view: it changes as events are applied; copy it to keep it). */
  get messages(): readonly DerivedMessage[] {
    return this.#messages;
  }

  /** Number of events applied (= the seq the next event must have). */
  get length(): number {
    return this.#length;
  }

  /**
   * The projector as plain JSON-able data (a copy): `MessageProjector.fromState` of it keeps applying later events
   * exactly as this one would, replacements of nodes projected before the state was taken included.
   */
  exportState(): ProjectorState {
    const surface: number[] = [];
    const silent: number[] = [];
    for (let slot = this.#surface.headSlot; slot >= 0; slot = this.#surface.nextSlot(slot)) {
      if (this.#counts.valueAt(slot) === 0) silent.push(surface.length);
      surface.push(this.#surface.seqAt(slot));
    }
    return {
      formatVersion: PROJECTOR_FORMAT_VERSION,
      length: this.#length,
      surface,
      silent,
      messages: this.#messages.slice(),
    };
  }

  /**
   * A projector restored from `exportState` data, checked first (it may come from a store or the network):
   * `SessionLogError` `INVALID_SNAPSHOT` when it is malformed or of another format version.
   */
  static fromState(state: unknown): MessageProjector {
    const checked = checkProjectorState(state);
    const projector = new MessageProjector();
    // One allocation sized for the whole log, rather than growing through it: a join of a long session restores fast.
    projector.#surface.reserve(checked.length, checked.surface.length);
    let silentAt = 0;
    checked.surface.forEach((seq, index) => {
      const isSilent = checked.silent[silentAt] === index;
      if (isSilent) silentAt++;
      projector.#surface.append(seq);
      projector.#counts.push(isSilent ? 0 : 1);
    });
    for (const message of checked.messages) projector.#messages.push(message);
    projector.#length = checked.length;
    return projector;
  }

  /** Applies the next committed event and returns what changed in `messages`. */
  apply(event: SessionEvent): ProjectionChange {
    switch (this.#project(event)) {
      case APPENDED:
        return { kind: 'appended', index: this.#changeStart, messages: [this.#changeMessage!] };
      case REPLACED:
        return {
          kind: 'replaced',
          start: this.#changeStart,
          deleteCount: this.#changeDeleteCount,
          messages: this.#changeMessage === null ? NO_MESSAGES : [this.#changeMessage],
        };
      default:
        return UNCHANGED;
    }
  }

  /**
   * Applies the next committed event like `apply`, but only reports whether `messages` changed (no change record
   * is built: the bulk path for replay and catch-up).
   */
  advance(event: SessionEvent): boolean {
    return this.#project(event) !== NOTHING;
  }

  /** Applies events in order (like `advance`); returns the current `messages`. */
  applyAll(events: Iterable<SessionEvent>): readonly DerivedMessage[] {
    for (const event of events) this.#project(event);
    return this.#messages;
  }

  #project(event: SessionEvent): ChangeKind {
    const seq = event.seq;
    // Object.is: a seq of -0 is refused like every -0.
    if (!Object.is(seq, this.#length))
      fail('INVALID_EVENT', seq, `expected seq ${this.#length}, got ${describeValue(seq)}`);
    if (!isSurfaceType(event.type)) {
      this.#length++;
      return NOTHING;
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

  #append(event: SessionEvent): ChangeKind {
    this.#surface.append(event.seq);
    this.#length++;
    const message = projectEvent(event);
    if (message === null) {
      this.#counts.push(0);
      return NOTHING;
    }
    this.#counts.push(1);
    this.#changeStart = this.#messages.length;
    this.#changeMessage = message;
    this.#messages.push(message);
    return APPENDED;
  }

  #replace(event: SessionEvent, startSlot: number, endSlot: number): ChangeKind {
    const counts = this.#counts;
    const start = counts.prefixSum(startSlot);
    let deleteCount = 0;
    this.#surface.replace(startSlot, endSlot, event.seq, (slot) => {
      const count = counts.valueAt(slot);
      if (count === 0) return;
      deleteCount += count;
      if (slot !== startSlot) counts.set(slot, 0);
    });
    this.#length++;
    const message = projectEvent(event);
    counts.set(startSlot, message === null ? 0 : 1);
    if (message === null && deleteCount === 0) return NOTHING;
    if (message === null) this.#messages.splice(start, deleteCount);
    else if (deleteCount === 1) this.#messages[start] = message;
    else this.#messages.splice(start, deleteCount, message);
    this.#changeStart = start;
    this.#changeDeleteCount = deleteCount;
    this.#changeMessage = message;
    return REPLACED;
  }
}

type ChangeKind = 0 | 1 | 2;
const NOTHING = 0;
const APPENDED = 1;
const REPLACED = 2;
