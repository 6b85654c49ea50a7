import { HubErrorCode } from '../../shared/protocol.ts';
import { HubError } from '../hub-error.ts';
import { RESENT_LATER_CODES } from '../../shared/retry-codes.ts';

/** Failed keys remembered per session of a connection; beyond it the oldest is forgotten (a client that gave up). */
export const MAX_FENCED_KEYS_PER_SESSION = 4096;
/** Sessions of a connection with failed keys; beyond it the session whose failures are oldest is forgotten. */
export const MAX_FENCED_SESSIONS = 1024;

function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
}

/**
 * Keeps a connection's pipelined appends in order across "retry later" failures. An append with an idempotency
 * key that fails with STORE_UNAVAILABLE, RATE_LIMITED or APPEND_FENCED is remembered; an append that names it in
 * `after` (it was sent right behind it) is refused with APPEND_FENCED, nothing written, and remembered in turn.
 * Re-sending the failed append (same key) forgets it. Appends without `after` are never refused: a client that
 * gave an append up simply stops naming it. Memory is per session, so failures on other sessions never push a
 * session's keys out; the bounds only matter for a client that abandons thousands of failed appends.
 */
export class AppendFences {
  /** Created on the first failure: most connections never need one. */
  #failed: Map<string, Set<string>> | undefined;

  /** Throws APPEND_FENCED when `after` failed and was not re-sent; a re-sent key is forgotten. */
  admit(sessionId: string, idempotencyKey: string | undefined, after: string | undefined): void {
    const keys = this.#failed?.get(sessionId);
    if (keys === undefined) return;
    if (idempotencyKey !== undefined && keys.delete(idempotencyKey) && keys.size === 0) {
      this.#failed?.delete(sessionId);
    }
    if (after === undefined || !keys.has(after)) return;
    throw new HubError(HubErrorCode.APPEND_FENCED, `the append it was sent after (${after}) must be re-sent first`, {
      after,
    });
  }

  /** An append failed with `error`: remember its key when the client will re-send it later. */
  failed(sessionId: string, idempotencyKey: string | undefined, error: unknown): void {
    if (idempotencyKey === undefined) return;
    const code = errorCode(error);
    // The client re-sends the append later: appends pipelined behind it must not overtake it.
    if (!RESENT_LATER_CODES.has(code as HubErrorCode)) return;
    const failed = (this.#failed ??= new Map());
    let keys = failed.get(sessionId);
    if (keys === undefined) {
      keys = new Set();
      failed.set(sessionId, keys);
      if (failed.size > MAX_FENCED_SESSIONS) failed.delete(failed.keys().next().value!);
    }
    keys.add(idempotencyKey);
    if (keys.size > MAX_FENCED_KEYS_PER_SESSION) keys.delete(keys.values().next().value!);
  }
}
