import { AuthFailureReason, unauthorized } from './auth-error.ts';
import { parseRequestTarget } from '../request-url.ts';

/**
 * Where a client's token can come from. Precedence: the `hello` message (socket), then the `Authorization: Bearer`
 * header (upgrade or HTTP request), then the `?token=` query parameter (browsers cannot set headers on a WebSocket).
 * A later `auth` message over the socket replaces the connection's token.
 */
export interface TokenCandidates {
  readonly hello?: string | undefined;
  readonly header?: string | undefined;
  readonly query?: string | undefined;
}

/**
 * The token in an `Authorization` header value, or undefined when there is no header. A header with another scheme
 * or no token throws `AuthError` (UNAUTHORIZED, `bad-auth-scheme`) rather than being silently ignored.
 */
export function tokenFromAuthorizationHeader(value: string | readonly string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    throw unauthorized(AuthFailureReason.BAD_AUTH_SCHEME, 'more than one Authorization header');
  }
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(value);
  if (match === null) {
    throw unauthorized(AuthFailureReason.BAD_AUTH_SCHEME, 'the Authorization header must be "Bearer <token>"');
  }
  return match[1];
}

/** The `token` query parameter of a request URL (path + query, or absolute), or undefined. Empty counts as absent. */
export function tokenFromUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const parsed = parseRequestTarget(url);
  if (parsed === undefined) return undefined; // an unparsable URL carries no token; the router refuses the request
  const tokens = parsed.searchParams.getAll('token');
  if (tokens.length > 1) throw unauthorized(AuthFailureReason.MALFORMED_TOKEN, 'more than one token parameter');
  const token = tokens[0];
  return token === undefined || token === '' ? undefined : token;
}

/** The token field of a `hello` (or `auth`) message: undefined when absent; not a non-empty string → UNAUTHORIZED. */
export function tokenFromMessage(message: { readonly token?: unknown }): string | undefined {
  const token = message.token;
  if (token === undefined) return undefined;
  if (typeof token !== 'string' || token.length === 0) {
    throw unauthorized(AuthFailureReason.MALFORMED_TOKEN, 'token must be a non-empty string');
  }
  return token;
}

/** The token to use among the candidates (see `TokenCandidates` for the precedence). */
export function selectToken(candidates: TokenCandidates): string | undefined {
  return candidates.hello ?? candidates.header ?? candidates.query;
}

/** Minimal request shape (Node's `IncomingMessage` fits). */
export interface RequestLike {
  readonly url?: string | undefined;
  readonly headers: { readonly authorization?: string | readonly string[] | undefined };
  /**
   * Every value of each header (Node >= 18.3). Node keeps only the first `Authorization` header in `headers`, so a
   * second one is only visible here.
   */
  readonly headersDistinct?: { readonly authorization?: readonly string[] | undefined };
}

/** The request's `Authorization` header: its one value, every value when sent more than once, or undefined. */
function authorizationOf(request: RequestLike): string | readonly string[] | undefined {
  const distinct = request.headersDistinct?.authorization;
  if (distinct === undefined) return request.headers.authorization;
  return distinct.length > 1 ? distinct : distinct[0];
}

/** Token of an HTTP or upgrade request: `Authorization: Bearer` first, then `?token=`. */
export function tokenFromRequest(request: RequestLike): string | undefined {
  return selectToken({
    header: tokenFromAuthorizationHeader(authorizationOf(request)),
    query: tokenFromUrl(request.url),
  });
}
