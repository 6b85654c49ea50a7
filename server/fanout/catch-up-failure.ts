import { HubErrorCode } from '../../shared/protocol.ts';
import { HubError } from '../hub-error.ts';
import { StoreDataError } from '../store/event-store.ts';
import { StoreTrimmedError } from '../store/trimmed-error.ts';

/**
 * The error that ends a subscription whose catch-up read from `seq` failed with `error`, or undefined when reading
 * again may help (the store is down: the catch-up retries). Re-reading gives the same answer for corrupted data
 * (DATA_CORRUPTED) and for trimmed seqs (GONE, with the first seq the log still holds): the subscription ends with
 * that error rather than stall or skip the seqs in silence.
 */
export function finalCatchUpError(error: unknown, sessionId: string, seq: number): HubError | undefined {
  if (error instanceof StoreDataError) {
    const message = `a stored entry of ${sessionId} at or after seq ${seq} is corrupted; the subscription ended`;
    return new HubError(HubErrorCode.DATA_CORRUPTED, message, { seq }, { cause: error });
  }
  if (error instanceof StoreTrimmedError) {
    const { firstSeq } = error;
    const message = `seq ${seq} of ${sessionId} is gone (its log starts at seq ${firstSeq}); the subscription ended`;
    return new HubError(HubErrorCode.GONE, message, { firstSeq, seq }, { cause: error });
  }
  return undefined;
}
