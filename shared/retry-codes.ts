import { HubErrorCode } from './protocol.ts';

/** The hub wrote nothing and can take the append later: the SDK re-sends it (same key) after a backoff delay. */
export const RETRY_LATER_CODES: ReadonlySet<HubErrorCode> = new Set([
  HubErrorCode.STORE_UNAVAILABLE,
  HubErrorCode.RATE_LIMITED,
]);

/**
 * Codes after which the SDK re-sends an append (same key) on the same connection: the retry-later codes, and
 * APPEND_FENCED (refused because the append it was pipelined behind failed; re-sent right after that one). The hub
 * fences appends pipelined behind one that failed with any of them, so that none overtakes it.
 */
export const RESENT_LATER_CODES: ReadonlySet<HubErrorCode> = new Set([
  ...RETRY_LATER_CODES,
  HubErrorCode.APPEND_FENCED,
]);
