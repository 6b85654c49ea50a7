import type { IncomingHttpHeaders } from 'node:http';

/** What a caller wants to do to a session (the unit of authorization). `redact`: replace events' data (admins may). */
export type HubAction = 'read' | 'append' | 'admin' | 'redact';

/** Who is calling, as established by `HubAuth.authenticate`. Opaque to the hub apart from these fields. */
export interface HubPrincipal {
  /** A name for logs (e.g. the JWT `sub`). */
  readonly subject: string;
  /** Epoch ms after which the credentials are void (the auth layer may end subscriptions then). */
  readonly expiresAt?: number;
  readonly [claim: string]: unknown;
}

/** Where a request came from, for authentication. */
export interface RequestInfo {
  readonly transport: 'ws' | 'http';
  readonly headers: IncomingHttpHeaders;
  /** Request path and query string. */
  readonly url: string;
  readonly remoteAddress: string | undefined;
}

/**
 * The auth seam. The hub calls `authenticate` on `hello` (with the hello token, else the upgrade request's
 * `Authorization: Bearer` / `?token=`), on `auth` (token refresh) and on every HTTP request; and `authorize`
 * before every subscribe, append and HTTP session request. Throw a `HubError` (UNAUTHORIZED, TOKEN_EXPIRED,
 * FORBIDDEN) to refuse; `authorize` may also return false (→ FORBIDDEN).
 */
export interface HubAuth {
  /**
   * True when this auth lets everyone in (no key configured): the hub then runs as an OPEN hub, answering only
   * loopback (or `allowedHosts`) `Host` values and loopback (or `allowedOrigins`) browser origins, and warns
   * `AUTH DISABLED` at startup. `openAuth` and `createHubAuth(openAuthenticator())` set it. Default false.
   */
  readonly open?: boolean;
  authenticate(token: string | undefined, request: RequestInfo): HubPrincipal | Promise<HubPrincipal>;
  authorize(principal: HubPrincipal, action: HubAction, sessionId: string): boolean | Promise<boolean>;
}

/** The default: everyone is `anonymous` and may do everything. */
export const openAuth: HubAuth = {
  open: true,
  authenticate: () => ({ subject: 'anonymous' }),
  authorize: () => true,
};
