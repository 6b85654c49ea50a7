import { SessionLogError } from '../shared/index.ts';
import { HubErrorCode, type ErrorMessage } from '../shared/protocol.ts';
import { FrameDecodeError } from '../shared/codec.ts';
import { ProtocolParseError } from '../shared/protocol-parse.ts';

/** Facts attached to an error reply (`details` on the wire). */
export type ErrorDetails = Readonly<Record<string, string | number | boolean | null>>;

/** An error the hub reports to a client, with a stable wire code. */
export class HubError extends Error {
  override readonly name = 'HubError';
  readonly code: HubErrorCode;
  readonly details: ErrorDetails | undefined;

  constructor(code: HubErrorCode, message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.details = details;
  }
}

const logErrorCodes: ReadonlySet<string> = new Set([
  HubErrorCode.INVALID_JSON,
  HubErrorCode.INVALID_EVENT,
  HubErrorCode.SURFACE_VIOLATION,
  HubErrorCode.LIFECYCLE_VIOLATION,
]);

function hasCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}

/**
 * Map anything thrown while serving a request to a `HubError`: session-log errors keep their code (with
 * `path`/`seq` details), store outages become STORE_UNAVAILABLE, reads of trimmed seqs GONE (with `firstSeq`), bad
 * store arguments and decode/parse errors BAD_REQUEST/PARSE_ERROR,
 * anything else INTERNAL (with a generic message: internals are logged, not sent).
 */
export function toHubError(error: unknown): HubError {
  if (error instanceof HubError) return error;
  if (error instanceof SessionLogError) {
    const details: Record<string, string | number> = {};
    if (error.path !== undefined) details['path'] = error.path;
    if (error.seq !== undefined) details['seq'] = error.seq;
    if (error.rule !== undefined) details['rule'] = error.rule;
    if (logErrorCodes.has(error.code)) {
      return new HubError(error.code as HubErrorCode, error.message, details, { cause: error });
    }
    return new HubError(HubErrorCode.INTERNAL, `session log error: ${error.message}`, details, { cause: error });
  }
  if (hasCode(error, HubErrorCode.STORE_UNAVAILABLE)) {
    // A commit cut off mid-flight may have happened: retrying with the same idempotency key is safe.
    const maybeCommitted = typeof error === 'object' && error !== null && 'maybeCommitted' in error;
    const unknown = maybeCommitted && error.maybeCommitted === true;
    const message = unknown
      ? 'the store became unavailable during the commit; retry with the same idempotency key'
      : 'the store is unavailable; nothing was written';
    return new HubError(HubErrorCode.STORE_UNAVAILABLE, message, { maybeCommitted: unknown }, { cause: error });
  }
  if (error instanceof Error && hasCode(error, HubErrorCode.BAD_REQUEST)) {
    // e.g. the store's StoreRequestError (a session id it cannot hold)
    return new HubError(HubErrorCode.BAD_REQUEST, error.message);
  }
  if (error instanceof Error && hasCode(error, HubErrorCode.GONE)) {
    // The store's StoreTrimmedError: the seqs were trimmed; say from where the log is kept.
    const firstSeq = 'firstSeq' in error && typeof error.firstSeq === 'number' ? error.firstSeq : null;
    return new HubError(HubErrorCode.GONE, error.message, { firstSeq }, { cause: error });
  }
  if (error instanceof Error && hasCode(error, HubErrorCode.DATA_CORRUPTED)) {
    // The store holds an entry it cannot read (StoreDataError): say so, and which, rather than INTERNAL.
    return new HubError(HubErrorCode.DATA_CORRUPTED, `stored data is corrupted: ${error.message}`, undefined, {
      cause: error,
    });
  }
  if (error instanceof Error && hasCode(error, HubErrorCode.INVALID_METADATA)) {
    const field = 'field' in error && typeof error.field === 'string' ? { field: error.field } : undefined;
    return new HubError(HubErrorCode.INVALID_METADATA, error.message, field);
  }
  for (const code of [HubErrorCode.HAS_FORKS, HubErrorCode.FORK_PARENT_CHANGED]) {
    // The store's StoreHasForksError and StoreForkParentError (forks, server/store/fork-store.ts).
    if (error instanceof Error && hasCode(error, code)) return new HubError(code, error.message);
  }
  if (error instanceof FrameDecodeError) return new HubError(HubErrorCode.PARSE_ERROR, error.message);
  if (error instanceof ProtocolParseError) return new HubError(HubErrorCode.BAD_REQUEST, error.message);
  return new HubError(HubErrorCode.INTERNAL, 'internal error', undefined, { cause: error });
}

/** The wire form of an error reply. */
export function errorMessage(error: HubError, id?: number, sessionId?: string): ErrorMessage {
  const message: { -readonly [K in keyof ErrorMessage]: ErrorMessage[K] } = {
    type: 'error',
    code: error.code,
    message: error.message,
  };
  if (id !== undefined) message.id = id;
  if (sessionId !== undefined) message.sessionId = sessionId;
  if (error.details !== undefined) message.details = error.details;
  return message;
}

const httpStatusByCode: Readonly<Partial<Record<HubErrorCode, number>>> = {
  SEQ_CONFLICT: 409,
  IDEMPOTENCY_MISMATCH: 409,
  INVALID_METADATA: 400,
  FORK_INSIDE_TURN: 409,
  FORK_TARGET_EXISTS: 409,
  FORK_PARENT_CHANGED: 409,
  FORK_TOO_DEEP: 400,
  HAS_FORKS: 409,
  NOT_FOUND: 404,
  GONE: 410,
  UNAUTHORIZED: 401,
  TOKEN_EXPIRED: 401,
  FORBIDDEN: 403,
  FRAME_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  BATCH_TOO_LARGE: 413,
  EVENT_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  SECRET_DETECTED: 422,
  APPEND_FENCED: 503,
  TOO_MANY_SUBSCRIPTIONS: 429,
  TOO_MANY_CONNECTIONS: 503,
  STORE_UNAVAILABLE: 503,
  SHUTTING_DOWN: 503,
  DATA_CORRUPTED: 500,
  SESSION_EXPIRED: 410,
  INTERNAL: 500,
};

/** HTTP status of an error code (400 unless listed: 401/403/404/409/410/413/415/422/429/500/503). */
export function httpStatusOf(code: HubErrorCode): number {
  return httpStatusByCode[code] ?? 400;
}
