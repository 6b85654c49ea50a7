import { StoreRequestError } from './event-store.ts';
import { DEFAULT_PRUNE_COUNT, MAX_PRUNE_COUNT, type IdempotencyPruneRequest } from './idempotency-prune.ts';
import { validateSessionId } from './session-id.ts';

/** Throws `StoreRequestError` unless the prune request is well-formed (both engines check the same way). */
export function checkPruneRequest(request: IdempotencyPruneRequest): void {
  validateSessionId(request.sessionId);
  if (!Number.isSafeInteger(request.olderThan)) throw new StoreRequestError('olderThan must be a safe integer (ms)');
  if (typeof request.cursor !== 'string' || !/^(|[1-9][0-9]{0,19})$/.test(request.cursor)) {
    throw new StoreRequestError("a prune cursor is '' or the cursor a previous prune answered");
  }
  const count = request.count ?? DEFAULT_PRUNE_COUNT;
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_PRUNE_COUNT) {
    throw new StoreRequestError(`a prune count is 1 to ${MAX_PRUNE_COUNT}`);
  }
}
