import { errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyOptions } from 'jose';
import { HubErrorCode } from '../../shared/protocol.ts';
import { AuthError, AuthFailureReason, unauthorized } from './auth-error.ts';
import { ALL_GRANTS, GRANTS_CLAIM, parseGrants, type Grants } from './grants.ts';
import type { VerificationKey } from './verification-key.ts';

/** Who is on the other end of a connection or request, and what they may do. */
export interface Principal {
  /** The token's `sub`, when it has one (for logs). */
  readonly subject: string | undefined;
  readonly grants: Grants;
  /**
   * Epoch ms after which the hub treats the token as expired (`exp` + clock tolerance); undefined when it never
   * expires (open mode, or a token without `exp` when `requireExpiry` is off).
   */
  readonly expiresAt: number | undefined;
  /** True for the all-powerful principal of a hub running without auth. */
  readonly open: boolean;
}

/** The principal every client gets when the hub runs without auth: every right on every session. */
export const OPEN_PRINCIPAL: Principal = Object.freeze({
  subject: undefined,
  grants: ALL_GRANTS,
  expiresAt: undefined,
  open: true,
});

export interface AuthenticatorOptions {
  readonly key: VerificationKey;
  /** Expected `iss` (one of). When set, tokens without it are refused. */
  readonly issuer?: string | readonly string[] | undefined;
  /** Expected `aud` (one of). When set, tokens without it are refused. */
  readonly audience?: string | readonly string[] | undefined;
  /** Allowed clock skew for `exp`/`nbf`, seconds. Default 5. */
  readonly clockToleranceSeconds?: number;
  /** Refuse tokens without `exp`. Default true: a token that never expires cannot be revoked. */
  readonly requireExpiry?: boolean;
  /** Longest token accepted, characters. Default 8192. */
  readonly maxTokenLength?: number;
  /** Clock, epoch ms (tests). Default `Date.now`. */
  readonly now?: () => number;
}

export interface Authenticator {
  /** `open`: no key configured, every client gets `OPEN_PRINCIPAL`; `token`: a valid token is required. */
  readonly mode: 'open' | 'token';
  /**
   * The principal for a request or connection: verify `token` (token mode), or `OPEN_PRINCIPAL` (open mode;
   * a token, if any, is ignored). Rejects with `AuthError`: UNAUTHORIZED (with `reason`), TOKEN_EXPIRED.
   */
  authenticate(token: string | undefined): Promise<Principal>;
  /** Verify a token (token mode). In open mode resolves to `OPEN_PRINCIPAL`. */
  verify(token: string): Promise<Principal>;
}

export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 5;
export const DEFAULT_MAX_TOKEN_LENGTH = 8192;

/** The authenticator of a hub without auth: everyone may do everything. */
export function openAuthenticator(): Authenticator {
  const principal = async (): Promise<Principal> => OPEN_PRINCIPAL;
  return { mode: 'open', authenticate: principal, verify: principal };
}

/** A JWT authenticator: exactly `options.key.algorithms` are accepted; grants come from the `sh` claim. */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const toleranceSeconds = options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
  const requireExpiry = options.requireExpiry ?? true;
  const maxTokenLength = options.maxTokenLength ?? DEFAULT_MAX_TOKEN_LENGTH;
  const now = options.now ?? Date.now;
  const baseOptions: JWTVerifyOptions = {
    algorithms: [...options.key.algorithms],
    clockTolerance: toleranceSeconds,
    requiredClaims: requireExpiry ? ['exp', GRANTS_CLAIM] : [GRANTS_CLAIM],
    ...(options.issuer === undefined ? {} : { issuer: toList(options.issuer) }),
    ...(options.audience === undefined ? {} : { audience: toList(options.audience) }),
  };

  const verify = async (token: string): Promise<Principal> => {
    if (typeof token !== 'string' || token.length === 0) {
      throw unauthorized(AuthFailureReason.MISSING_TOKEN, 'a bearer token is required');
    }
    if (token.length > maxTokenLength) {
      throw unauthorized(AuthFailureReason.MALFORMED_TOKEN, `token longer than ${maxTokenLength} characters`);
    }
    const verifyOptions = { ...baseOptions, currentDate: new Date(now()) };
    let payload: JWTPayload;
    try {
      const key = options.key;
      const result =
        key.kind === 'jwks'
          ? await jwtVerify(token, key.getKey, verifyOptions)
          : await jwtVerify(token, key.kind === 'secret' ? key.secret : key.key, verifyOptions);
      payload = result.payload;
    } catch (error) {
      throw toAuthError(error);
    }
    return {
      subject: typeof payload.sub === 'string' ? payload.sub : undefined,
      grants: parseGrants(payload[GRANTS_CLAIM]),
      expiresAt: payload.exp === undefined ? undefined : (payload.exp + toleranceSeconds) * 1000,
      open: false,
    };
  };

  return {
    mode: 'token',
    verify,
    authenticate: async (token) => {
      if (token === undefined) throw unauthorized(AuthFailureReason.MISSING_TOKEN, 'a bearer token is required');
      return verify(token);
    },
  };
}

function toList(value: string | readonly string[]): string[] {
  return typeof value === 'string' ? [value] : [...value];
}

/** Map a jose failure to a stable `AuthError` (the token itself never appears in the message). */
export function toAuthError(error: unknown): AuthError {
  if (error instanceof AuthError) return error;
  if (error instanceof joseErrors.JWTExpired) {
    return new AuthError(HubErrorCode.TOKEN_EXPIRED, AuthFailureReason.EXPIRED, 'token expired', {
      claim: 'exp',
      cause: error,
    });
  }
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    const options = { claim: error.claim, cause: error };
    if (error.claim === 'nbf') return unauthorized(AuthFailureReason.NOT_YET_VALID, 'token not yet valid', options);
    if (error.reason === 'missing') {
      return unauthorized(AuthFailureReason.MISSING_CLAIM, `token lacks the ${error.claim} claim`, options);
    }
    return unauthorized(AuthFailureReason.INVALID_CLAIM, `token claim ${error.claim} is not acceptable`, options);
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed || error instanceof joseErrors.JOSENotSupported) {
    return unauthorized(AuthFailureReason.ALG_NOT_ALLOWED, 'token algorithm not accepted by this hub', {
      cause: error,
    });
  }
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) {
    return unauthorized(AuthFailureReason.BAD_SIGNATURE, 'token signature verification failed', { cause: error });
  }
  if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWKSMultipleMatchingKeys) {
    return unauthorized(AuthFailureReason.UNKNOWN_KEY, 'no unique key of the key set matches the token', {
      cause: error,
    });
  }
  if (error instanceof joseErrors.JWTInvalid && /exp|nbf|iat/.test(error.message)) {
    return unauthorized(AuthFailureReason.INVALID_CLAIM, 'token time claims are malformed', { cause: error });
  }
  return unauthorized(AuthFailureReason.MALFORMED_TOKEN, 'token is malformed', { cause: error });
}
