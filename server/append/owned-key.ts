import { createHash } from 'node:crypto';

/**
 * The name an idempotency key is stored under: bound to the principal that sent it (its token subject), so that
 * one principal's key never answers for another's appends. Without it, a token that may only append could learn
 * whether another writer committed some content by retrying it under a guessed key (a `duplicate` or
 * `IDEMPOTENCY_MISMATCH` answer). A SHA-256 of the subject and the key (base64url, 43 characters): fixed length
 * whatever the subject, no subject stored in the clear.
 */
export function ownedIdempotencyKey(owner: string, key: string): string {
  return createHash('sha256').update(`${owner.length}:${owner}:${key}`).digest('base64url');
}
