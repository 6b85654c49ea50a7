import type { SessionEvent } from '../../shared/index.ts';
import { HubErrorCode } from '../../shared/protocol.ts';
import { HubError } from '../hub-error.ts';

/** What an ack reports. `events` is set when this call committed them (not on a duplicate). */
export interface AppendOutcome {
  readonly sessionId: string;
  readonly epoch: string;
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly time: number;
  readonly duplicate: boolean;
  readonly events: readonly SessionEvent[] | undefined;
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
