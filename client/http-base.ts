/** The hub's HTTP base URL for a WebSocket endpoint (`ws://h:p/v1/ws` → `http://h:p`, `wss:` → `https:`), for the
 * calls the SDK makes over HTTP (event ranges, redactions). */
export function httpBaseOf(wsUrl: string): string {
  const url = new URL(wsUrl);
  url.protocol = url.protocol === 'wss:' ? 'https:' : url.protocol === 'ws:' ? 'http:' : url.protocol;
  const path = url.pathname.replace(/\/v1\/ws\/?$/, '');
  return `${url.protocol}//${url.host}${path === '/' ? '' : path}`;
}
