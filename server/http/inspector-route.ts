import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.ts';
import type { InspectorAssets } from './inspector-asset.ts';
import { parseHostHeader } from './host-policy.ts';
import { requestUrl } from '../request-url.ts';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A `Host` value fit to stand in a CSP source: a DNS name or an IP literal, and a port. */
const CSP_HOSTNAME = /^(?:\[[0-9a-f:.]+\]|[a-z0-9_.-]+)$/;

/**
 * The page may load only its own files and talk only to the hub that served it: its own origin over HTTP, and
 * over WebSocket the same host and port (`'self'` does not cover ws:/wss: in every browser). The host is the
 * request's `Host` (an open hub answers only the allowed ones, see host-policy.ts); one that is not a plain
 * host[:port] gets `'self'` alone.
 */
export function contentSecurityPolicy(host: string | undefined): string {
  const parsed = host === undefined ? undefined : parseHostHeader(host);
  const ownHost =
    parsed !== undefined && CSP_HOSTNAME.test(parsed.hostname)
      ? `${parsed.hostname}${parsed.port === '' ? '' : `:${parsed.port}`}`
      : undefined;
  const connect = ownHost === undefined ? "'self'" : `'self' ws://${ownHost} wss://${ownHost}`;
  return `default-src 'self'; connect-src ${connect}; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'`;
}

/**
 * Serves the web inspector at `/inspect` (and `/` redirects there) in front of the HTTP API; every other request
 * goes to `api`. Assets load once, on the first request (bundled from sources in a checkout).
 */
export function withInspector(api: Handler, load: () => Promise<InspectorAssets>, logger: Logger): Handler {
  let assets: Promise<InspectorAssets> | undefined;
  const loaded = (): Promise<InspectorAssets> => {
    assets ??= load();
    return assets;
  };
  return (request, response) => {
    const path = requestUrl(request)?.pathname;
    const method = request.method ?? 'GET';
    if (path === undefined || (method !== 'GET' && method !== 'HEAD')) return api(request, response);
    if (path === '/') {
      response.writeHead(302, { location: '/inspect' }).end();
      return;
    }
    const name =
      path === '/inspect' || path === '/inspect/'
        ? 'index.html'
        : path.startsWith('/inspect/')
          ? path.slice(9)
          : undefined;
    if (name === undefined) return api(request, response);
    loaded()
      .then(
        (files) => {
          const asset = files.get(name);
          if (asset === undefined) {
            response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`no inspector file ${name}`);
            return;
          }
          response.writeHead(200, {
            'content-type': asset.contentType,
            'content-length': asset.body.byteLength,
            'cache-control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
            'x-content-type-options': 'nosniff',
            'referrer-policy': 'no-referrer',
            'content-security-policy': contentSecurityPolicy(request.headers.host),
          });
          response.end(method === 'HEAD' ? undefined : asset.body);
        },
        (error: unknown) => {
          assets = undefined;
          logger.error({ err: error }, 'the inspector could not be loaded');
          response
            .writeHead(503, { 'content-type': 'text/plain; charset=utf-8' })
            .end('the inspector is not available on this node (its assets are not built: npm run build)');
        },
      )
      .catch((error: unknown) => logger.error({ err: error }, 'could not write an inspector reply'));
  };
}
