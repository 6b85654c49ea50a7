/**
 * The lifetime of the epoch of a session nobody wrote (created by a read, a subscription or a refused commit),
 * shared by both engines: after it the session is forgotten and its next access gets a new epoch, so readers
 * cannot fill the store with sessions that never exist (docs/storage.md, "Epoch semantics").
 */

/** Default lifetime: 1 hour. */
export const DEFAULT_EMPTY_SESSION_EPOCH_TTL_MS = 3_600_000;

/** Checks an `emptySessionEpochTtlMs` option: a positive integer of milliseconds (else RangeError). */
export function checkEmptySessionEpochTtl(ttlMs: number): number {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
    throw new RangeError('emptySessionEpochTtlMs must be a positive integer');
  }
  return ttlMs;
}
