import type { HubErrorCode } from '../shared/protocol.ts';

/** Error codes raised by the SDK itself (never sent by the hub). */
export const ClientErrorCode = {
  /** The request got no answer in time. An append that timed out may still have committed: retry it with the
   * same `idempotencyKey` to find out (the hub answers a duplicate with the original seqs). */
  TIMEOUT: 'TIMEOUT',
  /** Too many appends are waiting for an ack (`outboxLimit`); nothing was sent. */
  OUTBOX_FULL: 'OUTBOX_FULL',
  /** The client (or the subscription / writer) was closed; the request was not sent or its fate is unknown. */
  CLOSED: 'CLOSED',
  /**
   * A connection attempt failed (refused port, DNS or TLS error, HTTP status instead of the upgrade, no welcome in
   * time): `details.url`, `details.kind`, `details.status` (HTTP), `details.retryInMs`. The client keeps retrying.
   */
  CONNECT_FAILED: 'CONNECT_FAILED',
  /** The append was never sent (no connection to the hub in time, or the client closed first): nothing written. */
  NOT_SENT: 'NOT_SENT',
  /** The hub closed the connection with a final close code (protocol error, policy violation). */
  CONNECTION_REFUSED: 'CONNECTION_REFUSED',
  /** An `AgentWriter` call that would break the session lifecycle (e.g. `endStep` without an open step). */
  INVALID_STATE: 'INVALID_STATE',
  /** The hub sent something the SDK cannot understand. */
  PROTOCOL: 'PROTOCOL',
  /** The token function threw or returned something that is not a string. */
  TOKEN_FAILED: 'TOKEN_FAILED',
} as const;
export type ClientErrorCode = (typeof ClientErrorCode)[keyof typeof ClientErrorCode];

/** Every code a `HubClientError` can carry: the hub's wire codes plus the SDK's own. */
export type HubClientErrorCode = HubErrorCode | ClientErrorCode;

/** Facts about an error, e.g. `{ headSeq }` for SEQ_CONFLICT or `{ closeCode }` for CONNECTION_REFUSED. */
export type HubClientErrorDetails = Readonly<Record<string, string | number | boolean | null>>;

export interface HubClientErrorOptions {
  readonly details?: HubClientErrorDetails | undefined;
  readonly sessionId?: string | undefined;
  readonly cause?: unknown;
}

/** The one error class of the SDK: a stable `code` (hub or client side), optional `details` and `sessionId`. */
export class HubClientError extends Error {
  override readonly name = 'HubClientError';
  readonly code: HubClientErrorCode;
  readonly details: HubClientErrorDetails;
  readonly sessionId: string | undefined;

  constructor(code: HubClientErrorCode, message: string, options: HubClientErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
    this.sessionId = options.sessionId;
  }
}
