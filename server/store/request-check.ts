import { hasLoneSurrogate } from '../../shared/check-helpers.ts';
import { isSeq, maxIdempotencyKeyUnits } from '../../shared/protocol-parse.ts';
import { StoreRequestError, type GroupCommitRequest, type KeyLookupRequest } from './event-store.ts';
import type { TrimRequest } from './trim.ts';
import { validateSessionId } from './session-id.ts';

/** Longest accepted idempotency key, in UTF-16 code units. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = maxIdempotencyKeyUnits;

/** Throws `StoreRequestError` unless the group is well-formed (both engines check the same way). */
export function checkGroupCommitRequest(request: GroupCommitRequest): void {
  validateSessionId(request.sessionId);
  if (!isSeq(request.expectedSeq)) {
    throw new StoreRequestError('expectedSeq must be a non-negative safe integer');
  }
  if (!Array.isArray(request.batches) || request.batches.length === 0) {
    throw new StoreRequestError('a group commit needs at least one batch');
  }
  checkBatches(request.batches);
}

/** Throws `StoreRequestError` unless the key lookup is well-formed (the batches as in a group commit). */
export function checkKeyLookupRequest(request: KeyLookupRequest): void {
  validateSessionId(request.sessionId);
  if (!Array.isArray(request.batches)) throw new StoreRequestError('a key lookup needs an array of batches');
  checkBatches(request.batches);
}

function checkBatches(batches: GroupCommitRequest['batches']): void {
  const keys = new Set<string>();
  for (const batch of batches) {
    if (!Array.isArray(batch.events) || batch.events.length === 0) {
      throw new StoreRequestError('a commit needs at least one event');
    }
    const key = batch.idempotencyKey;
    if (key === undefined) continue;
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
      throw new StoreRequestError(
        `an idempotency key must be a string of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
      );
    }
    // Redis stores keys as UTF-8, where every lone surrogate becomes U+FFFD: distinct keys would collide.
    if (hasLoneSurrogate(key)) throw new StoreRequestError('an idempotency key must be well-formed Unicode');
    if (keys.has(key)) throw new StoreRequestError(`idempotency key '${key}' appears twice in one group commit`);
    keys.add(key);
  }
}

/** Throws `StoreRequestError` unless the read arguments are well-formed. */
export function checkReadRequest(sessionId: string, fromSeq: number, limit: number): void {
  validateSessionId(sessionId);
  if (!isSeq(fromSeq)) throw new StoreRequestError('fromSeq must be a non-negative safe integer');
  if (!Number.isSafeInteger(limit) || limit < 1) throw new StoreRequestError('limit must be a positive integer');
}

/** Throws `StoreRequestError` unless the trim request is well-formed (both engines check the same way). */
export function checkTrimRequest(request: TrimRequest): void {
  validateSessionId(request.sessionId);
  if (typeof request.epoch !== 'string' || request.epoch === '' || request.epoch.length > 64) {
    throw new StoreRequestError('a trim needs the epoch of the session (1 to 64 characters)');
  }
  if (!isSeq(request.beforeSeq)) throw new StoreRequestError('beforeSeq must be a non-negative safe integer');
}
