import { HubErrorCode } from '../../shared/protocol.ts';
import type { HubAction, HubAuth, HubPrincipal } from './auth-seam.ts';
import { HubError } from '../hub-error.ts';
import { AuthError, AuthFailureReason } from './auth-error.ts';
import type { Authenticator, Principal } from './authenticator.ts';
import { can, type Grants } from './grants.ts';

/** The hub's principal for a verified token: the grants ride along for `authorize`. */
export interface TokenPrincipal extends HubPrincipal {
  readonly grants: Grants;
  readonly open: boolean;
}

/** An `AuthError` as the `HubError` the hub sends (code, message, `details.reason`/`claim`). */
export function toHubAuthError(error: AuthError): HubError {
  return new HubError(error.code, error.message, error.details, { cause: error });
}

function hubPrincipal(principal: Principal): TokenPrincipal {
  const base = {
    subject: principal.subject ?? (principal.open ? 'anonymous' : 'unnamed'),
    grants: principal.grants,
    open: principal.open,
  };
  return principal.expiresAt === undefined ? base : { ...base, expiresAt: principal.expiresAt };
}

function isTokenPrincipal(principal: HubPrincipal): principal is TokenPrincipal {
  return typeof principal['grants'] === 'object' && principal['grants'] !== null;
}

/**
 * The hub's auth seam backed by an `Authenticator`: `authenticate` verifies the token (any `AuthError` becomes a
 * `HubError` with the same code and `details.reason`); `authorize` checks expiry (TOKEN_EXPIRED) and the grants
 * (FORBIDDEN, reason `not-granted`).
 */
export function createHubAuth(authenticator: Authenticator, now: () => number = Date.now): HubAuth {
  return {
    open: authenticator.mode === 'open',
    authenticate: async (token) => {
      try {
        return hubPrincipal(await authenticator.authenticate(token));
      } catch (error) {
        if (error instanceof AuthError) throw toHubAuthError(error);
        throw error;
      }
    },
    authorize: (principal, action: HubAction, sessionId) => {
      if (!isTokenPrincipal(principal)) {
        throw new HubError(HubErrorCode.UNAUTHORIZED, 'not authenticated', { reason: AuthFailureReason.MISSING_TOKEN });
      }
      if (principal.expiresAt !== undefined && now() >= principal.expiresAt) {
        throw new HubError(HubErrorCode.TOKEN_EXPIRED, 'token expired; refresh it with an auth message', {
          reason: AuthFailureReason.EXPIRED,
        });
      }
      if (!can(principal.grants, action, sessionId)) {
        throw new HubError(HubErrorCode.FORBIDDEN, `the token does not grant ${action} on this session`, {
          reason: AuthFailureReason.NOT_GRANTED,
          action,
        });
      }
      return true;
    },
  };
}
