import * as crypto from 'node:crypto';

/** SHA-256 as base64url: the one-shot `crypto.hash` where Node has it (≥ 20.12; half the CPU), else `createHash`. */
const sha256: (input: string) => string =
  typeof crypto.hash === 'function'
    ? (input) => crypto.hash('sha256', input, 'base64url')
    : (input) => crypto.createHash('sha256').update(input).digest('base64url');

/**
 * The name an idempotency key is stored under: bound to the principal that sent it (its token subject), so that
 * one principal's key never answers for another's appends. Without it, a token that may only append could learn
 * whether another writer committed some content by retrying it under a guessed key (a `duplicate` or
 * `IDEMPOTENCY_MISMATCH` answer). A SHA-256 of the subject and the key (base64url, 43 characters): fixed length
 * whatever the subject, no subject stored in the clear.
 */
export function ownedIdempotencyKey(owner: string, key: string): string {
  return sha256(`${owner.length}:${owner}:${key}`);
}
