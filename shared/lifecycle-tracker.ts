import { isKnownEvent } from './event-types.ts';
import type { KnownEvent, SessionEvent } from './events.ts';

/** Stable codes of `validateLifecycle`, one per lifecycle rule of the reference. */
export const LifecycleViolationCode = {
  /** `turn/start` numbers must increase by 1 from 1. */
  TURN_OUT_OF_ORDER: 'TURN_OUT_OF_ORDER',
  /** `turn/start` while another turn is still open. */
  TURN_ALREADY_OPEN: 'TURN_ALREADY_OPEN',
  /** `turn/end` with no open turn, or for another turn number than the open one. */
  TURN_NOT_OPEN: 'TURN_NOT_OPEN',
  /** `turn/end` while a step is open. */
  TURN_ENDED_WITH_OPEN_STEP: 'TURN_ENDED_WITH_OPEN_STEP',
  /** `step/start` with no open turn, or for another turn than the open one. */
  STEP_OUTSIDE_TURN: 'STEP_OUTSIDE_TURN',
  /** Step numbers must increase by 1 from 1 within their turn. */
  STEP_OUT_OF_ORDER: 'STEP_OUT_OF_ORDER',
  /** `step/start` while another step is open. */
  STEP_ALREADY_OPEN: 'STEP_ALREADY_OPEN',
  /** `step/end` that does not close the open step. */
  STEP_NOT_OPEN: 'STEP_NOT_OPEN',
  /** An append-origin event carrying `{ turn, step }` outside the open step of the open turn. */
  EVENT_OUTSIDE_STEP: 'EVENT_OUTSIDE_STEP',
  /** A `tool/call` whose `callId` is already waiting for its result in the same turn. */
  DUPLICATE_CALL_ID: 'DUPLICATE_CALL_ID',
  /** An append-origin `tool/result` that answers no unanswered `tool/call` of its turn. */
  RESULT_WITHOUT_CALL: 'RESULT_WITHOUT_CALL',
  /**
   * A `tool/call` without a result when its turn ends (or, with `complete`, when the log ends, or when a
   * `turn/start` abandons its still-open turn).
   */
  CALL_UNANSWERED: 'CALL_UNANSWERED',
  /** With `complete`: the log ends inside a turn. */
  TURN_NOT_CLOSED: 'TURN_NOT_CLOSED',
  /** A step never closed: with `complete`, the log ends inside it; or a `turn/start` abandons its open turn. */
  STEP_NOT_CLOSED: 'STEP_NOT_CLOSED',
} as const;
export type LifecycleViolationCode = (typeof LifecycleViolationCode)[keyof typeof LifecycleViolationCode];

/** One broken lifecycle rule, at the seq where it was detected. */
export interface LifecycleViolation {
  readonly seq: number;
  readonly code: LifecycleViolationCode;
  readonly message: string;
}

/** A `tool/call` waiting for its result. */
export interface PendingCall {
  readonly seq: number;
  readonly callId: string;
  readonly name: string;
}

export interface OpenTurn {
  readonly turn: number;
  /** Number of the last step opened in this turn (0: none yet). */
  lastStep: number;
  /** The open step's number, or 0. */
  openStep: number;
  readonly pendingCalls: PendingCall[];
}

/** What a tracker holds between events (see `LifecycleTracker.snapshot`). */
export interface LifecycleState {
  readonly openTurn: OpenTurn | undefined;
  readonly lastTurn: number;
}

function copyTurn(open: OpenTurn | undefined): OpenTurn | undefined {
  return open === undefined ? undefined : { ...open, pendingCalls: [...open.pendingCalls] };
}

/** Folds a log's turns, steps and tool calls, recording violations and continuing as sensibly as it can. */
export class LifecycleTracker {
  readonly violations: LifecycleViolation[] = [];
  openTurn: OpenTurn | undefined;
  #lastTurn = 0;

  /** A copy of the state (O(unanswered calls)), to undo events that were only tried with `restore`. */
  snapshot(): LifecycleState {
    return { openTurn: copyTurn(this.openTurn), lastTurn: this.#lastTurn };
  }

  /** Go back to a state `snapshot` returned (the violations recorded since are kept: the caller reads them). */
  restore(state: LifecycleState): void {
    this.openTurn = copyTurn(state.openTurn);
    this.#lastTurn = state.lastTurn;
  }

  /** Rough heap size of the state in bytes (for caches with a byte budget). */
  get approximateBytes(): number {
    let bytes = 64;
    for (const call of this.openTurn?.pendingCalls ?? []) bytes += 64 + 2 * (call.callId.length + call.name.length);
    return bytes;
  }

  apply(event: SessionEvent): void {
    if (!isKnownEvent(event)) return;
    // Replacement events (any `surfaceOp` of kind replace) rewrite the surface, not the run: the reference exempts
    // them from step membership and call matching, so they take no part in the lifecycle at all.
    if (typeof event.surfaceOp === 'object') return;
    switch (event.type) {
      case 'turn/start':
        return this.#turnStart(event.seq, event.data.turn);
      case 'turn/end':
        return this.#turnEnd(event.seq, event.data.turn);
      case 'step/start':
        return this.#stepStart(event.seq, event.data.turn, event.data.step);
      case 'step/end':
        return this.#stepEnd(event.seq, event.data.turn, event.data.step);
      case 'assistant/chunk':
      case 'assistant/message':
        return this.#inStep(event);
      case 'system/message':
        if (event.data.turn !== undefined && event.data.step !== undefined) this.#inStep(event);
        return;
      case 'tool/call':
        this.#inStep(event);
        return this.#call(event.seq, event.data.callId, event.data.name);
      case 'tool/result':
        this.#inStep(event);
        return this.#result(event.seq, event.data.message.toolCallId, event.data.message.toolName);
      default:
        return;
    }
  }

  /** Records what is still open at the end of the log (for `complete` logs). */
  finish(lastSeq: number): void {
    const open = this.openTurn;
    if (open === undefined) return;
    if (open.openStep > 0) this.#add(lastSeq, 'STEP_NOT_CLOSED', `the log ends inside step ${open.openStep}`);
    this.#unanswered(lastSeq, open);
    this.#add(lastSeq, 'TURN_NOT_CLOSED', `the log ends inside turn ${open.turn}`);
  }

  #add(seq: number, code: LifecycleViolationCode, message: string): void {
    this.violations.push({ seq, code, message });
  }

  #turnStart(seq: number, turn: number): void {
    const abandoned = this.openTurn;
    if (abandoned !== undefined) {
      // The open turn never gets its turn/end: what that turn/end (or the end of a complete log) would have
      // reported is reported here, or its open step and unanswered calls would go unnoticed.
      this.#add(seq, 'TURN_ALREADY_OPEN', `turn ${turn} starts while turn ${abandoned.turn} is open`);
      if (abandoned.openStep > 0) {
        const step = `step ${abandoned.openStep} of turn ${abandoned.turn}`;
        this.#add(seq, 'STEP_NOT_CLOSED', `${step} is still open when turn ${turn} starts`);
      }
      this.#unanswered(seq, abandoned);
    }
    if (turn !== this.#lastTurn + 1) {
      this.#add(seq, 'TURN_OUT_OF_ORDER', `turn ${turn} starts after turn ${this.#lastTurn}`);
    }
    this.#lastTurn = turn;
    this.openTurn = { turn, lastStep: 0, openStep: 0, pendingCalls: [] };
  }

  #turnEnd(seq: number, turn: number): void {
    const open = this.openTurn;
    if (open?.turn !== turn) {
      const state = open === undefined ? 'no turn is open' : `turn ${open.turn} is open`;
      this.#add(seq, 'TURN_NOT_OPEN', `turn/end for turn ${turn}, but ${state}`);
      return;
    }
    if (open.openStep > 0) {
      this.#add(seq, 'TURN_ENDED_WITH_OPEN_STEP', `turn ${turn} ends while step ${open.openStep} is open`);
    }
    this.#unanswered(seq, open);
    this.openTurn = undefined;
  }

  #unanswered(seq: number, open: OpenTurn): void {
    for (const call of open.pendingCalls) {
      this.#add(seq, 'CALL_UNANSWERED', `tool/call ${call.seq} (${call.callId}, ${call.name}) has no tool/result`);
    }
  }

  #stepStart(seq: number, turn: number, step: number): void {
    const open = this.openTurn;
    if (open?.turn !== turn) {
      this.#add(seq, 'STEP_OUTSIDE_TURN', `step ${step} of turn ${turn} starts outside that turn`);
      return;
    }
    if (open.openStep > 0)
      this.#add(seq, 'STEP_ALREADY_OPEN', `step ${step} starts while step ${open.openStep} is open`);
    if (step !== open.lastStep + 1) {
      this.#add(seq, 'STEP_OUT_OF_ORDER', `step ${step} of turn ${turn} follows step ${open.lastStep}`);
    }
    open.lastStep = step;
    open.openStep = step;
  }

  #stepEnd(seq: number, turn: number, step: number): void {
    const open = this.openTurn;
    if (open?.turn !== turn || open.openStep !== step) {
      this.#add(seq, 'STEP_NOT_OPEN', `step/end for step ${step} of turn ${turn}, which is not the open step`);
      return;
    }
    open.openStep = 0;
  }

  #inStep(event: KnownEvent & { readonly data: { readonly turn?: number; readonly step?: number } }): void {
    const open = this.openTurn;
    const { turn, step } = event.data;
    if (open === undefined || open.turn !== turn || open.openStep === 0 || open.openStep !== step) {
      const where = open === undefined ? 'no turn is open' : `the open step is ${open.turn}.${open.openStep || '-'}`;
      this.#add(event.seq, 'EVENT_OUTSIDE_STEP', `${event.type} for step ${turn}.${step}, but ${where}`);
    }
  }

  #call(seq: number, callId: string, name: string): void {
    const open = this.openTurn;
    if (open === undefined) return;
    if (open.pendingCalls.some((call) => call.callId === callId)) {
      this.#add(seq, 'DUPLICATE_CALL_ID', `tool/call id ${callId} is already waiting for a result`);
      return;
    }
    open.pendingCalls.push({ seq, callId, name });
  }

  #result(seq: number, toolCallId: string | undefined, toolName: string): void {
    const pending = this.openTurn?.pendingCalls ?? [];
    const index =
      toolCallId === undefined
        ? pending.findIndex((call) => call.name === toolName)
        : pending.findIndex((call) => call.callId === toolCallId);
    if (index < 0) {
      const key = toolCallId === undefined ? `tool ${toolName}` : `call id ${toolCallId}`;
      this.#add(seq, 'RESULT_WITHOUT_CALL', `tool/result for ${key} answers no unanswered tool/call of its turn`);
      return;
    }
    pending.splice(index, 1);
  }
}
