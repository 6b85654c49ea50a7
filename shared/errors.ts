/**
 * Stable error codes of the session log (shared by the core, the hub and the SDK).
 * Codes never change meaning; new ones may be added.
 */
export const SessionLogErrorCode = {
  /** A value is not lossless JSON (see `freezeJson`); `path` names where. */
  INVALID_JSON: 'INVALID_JSON',
  /** The envelope or a known type's data shape is wrong. */
  INVALID_EVENT: 'INVALID_EVENT',
  /** A `surfaceOp` or `sourceEventSeqs` breaks the surface rules. */
  SURFACE_VIOLATION: 'SURFACE_VIOLATION',
  /**
   * An append would break a lifecycle rule (turn/step numbering and enclosure, tool results answering open calls):
   * `rule` names the rule (a `LifecycleViolationCode`). Only validators that enforce the lifecycle (the hub's) throw it.
   */
  LIFECYCLE_VIOLATION: 'LIFECYCLE_VIOLATION',
  /** A stored log fails re-validation in `Session.fromLog` or `parseJsonl` (`seq` names the first bad event). */
  INVALID_LOG: 'INVALID_LOG',
  /** `append` was called from inside a subscriber. */
  REENTRANT_APPEND: 'REENTRANT_APPEND',
  /** Provider adapters: a tool result with no call, or a call left without a result in a closed turn. */
  UNPAIRED_TOOL_MESSAGE: 'UNPAIRED_TOOL_MESSAGE',
  /** Provider adapters: a message (or provider request) the target format cannot carry, or of a wrong shape. */
  UNSUPPORTED_MESSAGE: 'UNSUPPORTED_MESSAGE',
  /** A projector state (a snapshot) is malformed or of another format version (`path` names where). */
  INVALID_SNAPSHOT: 'INVALID_SNAPSHOT',
} as const;
export type SessionLogErrorCode = (typeof SessionLogErrorCode)[keyof typeof SessionLogErrorCode];

export interface SessionLogErrorOptions {
  /** Path of the offending value, e.g. `data.message.content[2].input`. */
  readonly path?: string;
  /** Seq of the offending event (in a stored log) or the seq the rejected event would have had. */
  readonly seq?: number;
  /** The lifecycle rule a `LIFECYCLE_VIOLATION` broke (a `LifecycleViolationCode`). */
  readonly rule?: string;
  readonly cause?: unknown;
}

/** The one error class of the session-log core: a stable `code`, an optional `path` and `seq`. */
export class SessionLogError extends Error {
  override readonly name = 'SessionLogError';
  readonly code: SessionLogErrorCode;
  readonly path: string | undefined;
  readonly seq: number | undefined;
  readonly rule: string | undefined;

  constructor(code: SessionLogErrorCode, message: string, options: SessionLogErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.path = options.path;
    this.seq = options.seq;
    this.rule = options.rule;
  }
}
