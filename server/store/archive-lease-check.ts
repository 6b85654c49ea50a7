import { StoreRequestError } from './event-store.ts';
import { MAX_ARCHIVE_LEASE_TOKEN_LENGTH } from './archive-lease.ts';
import { validateSessionId } from './session-id.ts';

/** Throws `StoreRequestError` for a bad token or time (both engines check the same way). */
export function checkLeaseRequest(sessionId: string, token: string, ttlMs?: number): void {
  validateSessionId(sessionId);
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_ARCHIVE_LEASE_TOKEN_LENGTH) {
    throw new StoreRequestError(`an archive lease token has 1 to ${MAX_ARCHIVE_LEASE_TOKEN_LENGTH} characters`);
  }
  if (ttlMs !== undefined && (!Number.isSafeInteger(ttlMs) || ttlMs < 1 || ttlMs > 86_400_000)) {
    throw new StoreRequestError('an archive lease lasts 1 ms to 24 h (an integer of ms)');
  }
}
