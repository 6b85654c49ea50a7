import type { IncomingMessage } from 'node:http';

/** The bearer token of a request: `Authorization: Bearer <token>`, else the `token` query parameter. */
export function requestToken(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match !== null) return match[1];
  }
  const query = new URL(request.url ?? '/', 'http://hub').searchParams.get('token');
  return query ?? undefined;
}
