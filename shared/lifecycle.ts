import type { KnownEventDraft, SessionEvent } from './events.ts';
import type { LifecycleViolation } from './lifecycle-tracker.ts';
import { LifecycleTracker } from './lifecycle-tracker.ts';

export interface LifecycleOptions {
  /** Require a finished log: every turn closed and every call answered (default false: the last turn may be open). */
  readonly complete?: boolean;
}

/**
 * Checks the lifecycle invariants over a valid log (turns and steps open and close in order, events with
 * `{ turn, step }` inside the open step, every tool call answered once in its turn). `append` does not enforce
 * these. Returns the violations in seq order, empty for a well-formed log.
 */
export function validateLifecycle(
  events: readonly SessionEvent[],
  options: LifecycleOptions = {},
): readonly LifecycleViolation[] {
  const tracker = new LifecycleTracker();
  for (const event of events) tracker.apply(event);
  const last = events.at(-1);
  if (options.complete === true && last !== undefined) tracker.finish(last.seq);
  return Object.freeze(tracker.violations);
}

/** `content` of the error results `repairInterrupted` gives unanswered calls. */
export const INTERRUPTED_TOOL_OUTPUT = 'Tool call interrupted: the session was cut off before it returned.';

/**
 * The drafts that close a log cut off by a crash: an error `tool/result` for each unanswered call of the open
 * turn (inside the open step, or a new step when none is open), `step/end` for the open step, then
 * `turn/end { reason: { kind: 'interrupted' } }`. Empty when no turn is open.
 */
export function repairInterrupted(events: readonly SessionEvent[]): readonly KnownEventDraft[] {
  const tracker = new LifecycleTracker();
  for (const event of events) tracker.apply(event);
  const open = tracker.openTurn;
  if (open === undefined) return [];
  const { turn } = open;
  const repair: KnownEventDraft[] = [];
  let step = open.openStep;
  if (open.pendingCalls.length > 0 && step === 0) {
    step = open.lastStep + 1;
    repair.push({ type: 'step/start', data: { turn, step } });
  }
  for (const call of open.pendingCalls) {
    repair.push({
      type: 'tool/result',
      data: {
        turn,
        step,
        message: {
          role: 'tool',
          toolCallId: call.callId,
          toolName: call.name,
          content: INTERRUPTED_TOOL_OUTPUT,
          isError: true,
        },
        error: { kind: 'interrupted' },
      },
      surfaceOp: 'append',
      sourceEventSeqs: [call.seq],
    });
  }
  if (step > 0) repair.push({ type: 'step/end', data: { turn, step } });
  repair.push({ type: 'turn/end', data: { turn, reason: { kind: 'interrupted' } } });
  return repair;
}
