/**
 * Which browser origins may open a WebSocket to the hub (the `Origin` header of the upgrade request; clients that
 * are not browsers send none and are always let through: the check defends browsers' users, not the hub).
 *
 * A browser attaches no credentials of its own to a hub request (tokens travel in `hello` or the query string,
 * never in cookies), so a hub with auth needs no origin check. An OPEN hub (no auth) does: every web page its user
 * visits could otherwise open `ws://127.0.0.1:8080/v1/ws` and read and write every session (cross-site WebSocket
 * hijacking). So the default is: with auth, any origin; open, loopback origins only.
 */
export type AllowedOrigins = '*' | readonly string[];

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Is `origin` (the header's value) a page served from this machine (http or https, any port)? */
export function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname);
}

/** The check for a configuration: `allowed` (default per auth, see above) against the header's value. */
export function originPolicy(
  allowed: AllowedOrigins | undefined,
  authEnabled: boolean,
): (origin: string | undefined) => boolean {
  if (allowed === '*' || (allowed === undefined && authEnabled)) return () => true;
  if (allowed === undefined) return (origin) => origin === undefined || isLoopbackOrigin(origin);
  const listed = new Set(allowed.map((origin) => origin.trim().toLowerCase().replace(/\/+$/, '')));
  return (origin) => origin === undefined || listed.has(origin.trim().toLowerCase());
}
