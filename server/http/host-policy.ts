/**
 * Which `Host` header values an OPEN hub answers (DNS rebinding defence). A web page on `http://evil.example` can
 * point its own DNS name at 127.0.0.1 after the page has loaded; its requests then reach a hub on the user's machine
 * as same-origin requests, with `Host: evil.example` (the browser sends the name it resolved, not the address). An
 * open hub therefore answers only the loopback names, and the names its operator lists; a hub with auth needs no
 * check (a page cannot make the browser attach a token).
 */

const LOOPBACK_HOSTNAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `hostname` and `port` ('' when none) of a `Host` header value, lowercased; undefined when it is not one. */
export function parseHostHeader(value: string): { readonly hostname: string; readonly port: string } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^\s:[\]/@]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  if (match === null) return undefined;
  return { hostname: match[1]!.toLowerCase().replace(/\.$/, ''), port: match[2] ?? '' };
}

/**
 * The check for a configuration: with auth (`authEnabled`) every `Host` is answered; open, loopback names and the
 * listed ones (`name` matches any port, `name:port` that port only). A request without `Host` (HTTP/1.0, never a
 * browser) is answered.
 */
export function hostPolicy(
  allowed: readonly string[] | undefined,
  authEnabled: boolean,
): (host: string | undefined) => boolean {
  if (authEnabled) return () => true;
  const listed = (allowed ?? []).map((entry) => {
    const parsed = parseHostHeader(entry);
    if (parsed === undefined) throw new TypeError(`allowed host ${JSON.stringify(entry)} is not a host[:port]`);
    return parsed;
  });
  return (host) => {
    if (host === undefined) return true;
    const parsed = parseHostHeader(host);
    if (parsed === undefined) return false;
    if (LOOPBACK_HOSTNAMES.has(parsed.hostname)) return true;
    return listed.some(
      (entry) => entry.hostname === parsed.hostname && (entry.port === '' || entry.port === parsed.port),
    );
  };
}
