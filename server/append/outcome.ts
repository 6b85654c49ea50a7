import type { SessionEvent } from '../../shared/index.ts';
import { HubErrorCode, type AckMessage } from '../../shared/protocol.ts';
import { HubError } from '../hub-error.ts';

/**
 * What an ack reports: the ack message's fields (shared/protocol.ts) but its `type` and request `id`, and `events`,
 * set when this call committed them (not on a duplicate).
 */
export interface AppendOutcome extends Omit<AckMessage, 'type' | 'id'> {
  readonly events: readonly SessionEvent[] | undefined;
}

/** The ack's fields of an outcome (its `events` left out; `trailerEvents` only when some were committed behind). */
export function ackFields(outcome: AppendOutcome): Omit<AckMessage, 'type' | 'id'> {
  const { sessionId, epoch, firstSeq, lastSeq, time, duplicate, trailerEvents } = outcome;
  const ack = { sessionId, epoch, firstSeq, lastSeq, time, duplicate };
  return trailerEvents === undefined || trailerEvents === 0 ? ack : { ...ack, trailerEvents };
}

/**
 * A fresh commit's outcome for the append whose own committed `events` (at least one) these are; `trailerEvents`
 * is set when the store committed some behind them.
 */
export function committedOutcome(
  sessionId: string,
  epoch: string,
  events: readonly SessionEvent[],
  trailerEvents: number,
): AppendOutcome {
  const { seq: firstSeq, time } = events[0]!;
  const lastSeq = events[events.length - 1]!.seq;
  const outcome = { sessionId, epoch, firstSeq, lastSeq, time, duplicate: false, events };
  return trailerEvents === 0 ? outcome : { ...outcome, trailerEvents };
}

/** What the pipeline answers besides a fresh commit: a duplicate's ack, and its two conflict errors. */
export function seqConflict(message: string, headSeq: number): HubError {
  return new HubError(HubErrorCode.SEQ_CONFLICT, message, { headSeq });
}

export function duplicateOutcome(
  sessionId: string,
  result: { readonly epoch: string; readonly firstSeq: number; readonly lastSeq: number; readonly time: number },
): AppendOutcome {
  const { epoch, firstSeq, lastSeq, time } = result;
  return { sessionId, epoch, firstSeq, lastSeq, time, duplicate: true, events: undefined };
}

export function idempotencyMismatch(result: { readonly firstSeq: number; readonly lastSeq: number }): HubError {
  return new HubError(HubErrorCode.IDEMPOTENCY_MISMATCH, 'this idempotency key was used for a different batch', {
    firstSeq: result.firstSeq,
    lastSeq: result.lastSeq,
  });
}
