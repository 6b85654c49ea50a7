import { isSeq } from '../../shared/protocol-parse.ts';
import { StoreRequestError, type CommitRequest } from './event-store.ts';
import { validateSessionId } from './session-id.ts';

/** Longest accepted idempotency key, in UTF-16 code units. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 256;

/** Throws `StoreRequestError` unless the commit request is well-formed (both engines check the same way). */
export function checkCommitRequest(request: CommitRequest): void {
  validateSessionId(request.sessionId);
  if (!isSeq(request.expectedSeq)) {
    throw new StoreRequestError('expectedSeq must be a non-negative safe integer');
  }
  if (!Array.isArray(request.events) || request.events.length === 0) {
    throw new StoreRequestError('a commit needs at least one event');
  }
  const key = request.idempotencyKey;
  if (key !== undefined) {
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
      throw new StoreRequestError(
        `an idempotency key must be a string of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
      );
    }
  }
}

/** Throws `StoreRequestError` unless the read arguments are well-formed. */
export function checkReadRequest(sessionId: string, fromSeq: number, limit: number): void {
  validateSessionId(sessionId);
  if (!isSeq(fromSeq)) throw new StoreRequestError('fromSeq must be a non-negative safe integer');
  if (!Number.isSafeInteger(limit) || limit < 1) throw new StoreRequestError('limit must be a positive integer');
}
