import { HubErrorCode } from '../../shared/protocol.ts';

/** The wire codes an auth failure can carry. */
export type AuthErrorCode =
  typeof HubErrorCode.UNAUTHORIZED | typeof HubErrorCode.TOKEN_EXPIRED | typeof HubErrorCode.FORBIDDEN;

/**
 * Why an auth check failed: a stable, machine-readable refinement of the wire code, sent to clients in
 * `error.details.reason`. Never changes meaning; new reasons may be added.
 */
export const AuthFailureReason = {
  /** No token where one is required. (UNAUTHORIZED) */
  MISSING_TOKEN: 'missing-token',
  /** `Authorization` header present but not `Bearer <token>`. (UNAUTHORIZED) */
  BAD_AUTH_SCHEME: 'bad-auth-scheme',
  /** Not a compact JWS, bad base64/JSON, or longer than the limit. (UNAUTHORIZED) */
  MALFORMED_TOKEN: 'malformed-token',
  /** `alg` is not the configured one (this includes `none` and HS256 signed with a public key). (UNAUTHORIZED) */
  ALG_NOT_ALLOWED: 'alg-not-allowed',
  /** Signature does not verify with the configured key. (UNAUTHORIZED) */
  BAD_SIGNATURE: 'bad-signature',
  /** No key of the JWKS matches the token's `kid`/`alg`. (UNAUTHORIZED) */
  UNKNOWN_KEY: 'unknown-key',
  /** `exp` is in the past. (TOKEN_EXPIRED) */
  EXPIRED: 'expired',
  /** `nbf` is in the future. (UNAUTHORIZED) */
  NOT_YET_VALID: 'not-yet-valid',
  /** A required claim (`exp`, `sh`, `iss`/`aud` when configured) is absent. (UNAUTHORIZED) */
  MISSING_CLAIM: 'missing-claim',
  /** A claim has the wrong value or type (`iss`, `aud`, `exp`, ...). (UNAUTHORIZED) */
  INVALID_CLAIM: 'invalid-claim',
  /** The `sh` grants claim is malformed. (UNAUTHORIZED) */
  BAD_GRANTS: 'bad-grants',
  /** The token is valid but does not grant this action on this session. (FORBIDDEN) */
  NOT_GRANTED: 'not-granted',
} as const;
export type AuthFailureReason = (typeof AuthFailureReason)[keyof typeof AuthFailureReason];

export interface AuthErrorOptions {
  /** The claim concerned, when there is one (`exp`, `nbf`, `iss`, `aud`, `sh`). */
  readonly claim?: string;
  readonly cause?: unknown;
}

/**
 * An auth failure: `code` is the wire code (`UNAUTHORIZED`, `TOKEN_EXPIRED`, `FORBIDDEN`), `reason` the stable
 * refinement. The message never contains the token.
 */
export class AuthError extends Error {
  override readonly name = 'AuthError';
  readonly code: AuthErrorCode;
  readonly reason: AuthFailureReason;
  readonly claim: string | undefined;

  constructor(code: AuthErrorCode, reason: AuthFailureReason, message: string, options: AuthErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.reason = reason;
    this.claim = options.claim;
  }

  /** Facts for `ErrorMessage.details` on the wire. */
  get details(): Readonly<Record<string, string>> {
    return this.claim === undefined ? { reason: this.reason } : { reason: this.reason, claim: this.claim };
  }
}

/** Shorthand for an `UNAUTHORIZED` error. */
export function unauthorized(reason: AuthFailureReason, message: string, options?: AuthErrorOptions): AuthError {
  return new AuthError(HubErrorCode.UNAUTHORIZED, reason, message, options);
}
