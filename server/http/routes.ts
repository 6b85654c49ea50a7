import type { IncomingMessage, ServerResponse } from 'node:http';
import { HubErrorCode } from '../../shared/protocol.ts';
import { httpStatusOf, toHubError } from '../hub-error.ts';
import { httpMethodLabel } from '../metrics.ts';
import { ALL_SESSIONS, authorize, sessionRoute, type HttpRoutesDeps, type SessionApiDeps } from './sessions-api.ts';
import type { HttpReply } from './http-reply.ts';
import { ConcurrencySlots } from '../limits/concurrency-slots.ts';
import { browserRefusal } from './browser-guard.ts';
import { requestUrl } from '../request-url.ts';
import { withTimeout } from '../../shared/timeout.ts';
import { metricsReply } from './metrics-server.ts';
import { subjectErasureReply } from './erasure-route.ts';

export type { HttpRoutesDeps } from './sessions-api.ts';

const readyTimeoutMs = 2000;

/** The HTTP API of a hub node: health, readiness, metrics and the session routes (sessions-api.ts). */
export function createHttpHandler(
  routesDeps: HttpRoutesDeps,
): (request: IncomingMessage, response: ServerResponse) => void {
  const deps: SessionApiDeps = {
    ...routesDeps,
    pageSlots: new ConcurrencySlots(routesDeps.limits.maxConcurrentPageReads),
  };
  return (request, response) => {
    const url = requestUrl(request);
    const { route, run } =
      url === undefined
        ? { route: 'unparsable', run: () => Promise.resolve(badTarget()) }
        : guarded(url, request, deps, routeOf(routedMethod(request.method), url, request, deps));
    run()
      .catch((error: unknown) => errorReply(error, deps))
      .then(async (reply) => {
        deps.metrics.httpRequests.inc({
          method: httpMethodLabel(request.method),
          handler: route,
          code: String(reply.status),
        });
        response.writeHead(reply.status, {
          'content-type': reply.contentType ?? 'application/json; charset=utf-8',
          'cache-control': 'no-store',
          ...reply.headers,
        });
        if (reply.write !== undefined) return reply.write(response);
        response.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
      })
      .catch((error: unknown) => {
        deps.logger.error({ err: error }, 'could not write an HTTP reply');
        response.destroy();
      });
  };
}

/** Health probes answer any caller; everything else is refused to a Host or Origin the hub does not serve. */
function guarded(
  url: URL,
  request: IncomingMessage,
  deps: HttpRoutesDeps,
  routed: { route: string; run: () => Promise<HttpReply> },
): { route: string; run: () => Promise<HttpReply> } {
  if (url.pathname === '/healthz' || url.pathname === '/readyz') return routed;
  const refusal = browserRefusal(request.headers, deps.browserPolicy);
  if (refusal === undefined) return routed;
  deps.logger.warn(
    { host: request.headers.host, origin: request.headers.origin, remote: request.socket.remoteAddress },
    'HTTP request refused: Host or Origin not allowed',
  );
  return { route: routed.route, run: () => Promise.reject(refusal) };
}

function routeOf(
  method: string,
  url: URL,
  request: IncomingMessage,
  deps: SessionApiDeps,
): { route: string; run: () => Promise<HttpReply> } {
  const path = url.pathname;
  const only = (allowed: string, route: string, run: () => Promise<HttpReply>) => ({
    route,
    run: method === allowed ? run : () => Promise.resolve(methodNotAllowed(allowed, route)),
  });
  if (path === '/healthz') {
    return only('GET', path, async () => ({ status: 200, body: { status: 'ok', node: deps.nodeName } }));
  }
  if (path === '/readyz') return only('GET', path, () => readiness(deps));
  if (path === '/metrics') {
    // The admin right on every session, as for the full session list (an open hub grants it to everyone);
    // scrapers without a token use the separate listener of `--metrics-port` (metrics-server.ts).
    return only('GET', path, async () => {
      await authorize(request, ALL_SESSIONS, 'admin', deps);
      return metricsReply(deps.metrics);
    });
  }
  if (path === '/v1/erasures') {
    return only('POST', path, () =>
      subjectErasureReply(request, deps, (scope) => authorize(request, scope, 'redact', deps)),
    );
  }
  const session = sessionRoute(method, url, request, deps);
  if (session !== undefined) {
    const { route, allowed, run } = session;
    return { route, run: allowed.includes(method) ? run : () => Promise.resolve(methodNotAllowed(allowed, route)) };
  }
  return {
    route: 'other',
    run: async () => ({ status: 404, body: { error: { code: HubErrorCode.NOT_FOUND, message: `no route ${path}` } } }),
  };
}

async function readiness(deps: HttpRoutesDeps): Promise<HttpReply> {
  const { store, nodeName } = deps;
  if (deps.isShuttingDown()) return { status: 503, body: { status: 'shutting-down', node: nodeName } };
  try {
    await withTimeout(store.ping(), readyTimeoutMs, () => new Error(`no answer in ${readyTimeoutMs} ms`));
    return { status: 200, body: { status: 'ready', node: nodeName, engine: store.engine } };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { status: 503, body: { status: 'unavailable', node: nodeName, engine: store.engine, error: message } };
  }
}

function badTarget(): HttpReply {
  return {
    status: 400,
    body: { error: { code: HubErrorCode.BAD_REQUEST, message: 'the request target is not a URL' } },
  };
}

/** HEAD is served as GET (Node sends the headers and drops the body): load balancers probe health with it. */
function routedMethod(method: string | undefined): string {
  return method === undefined || method === 'HEAD' ? 'GET' : method;
}

function methodNotAllowed(allowed: string, route: string): HttpReply {
  const error = { code: HubErrorCode.BAD_REQUEST, message: `use ${allowed} on ${route}` };
  const methods = allowed.split(',');
  const allow = (methods.includes('GET') ? [...methods, 'HEAD'] : methods).join(', ');
  return { status: 405, body: { error }, headers: { allow } };
}

function errorReply(error: unknown, deps: HttpRoutesDeps): HttpReply {
  const hubError = toHubError(error);
  deps.metrics.errors.inc({ code: hubError.code });
  if (hubError.code === HubErrorCode.INTERNAL) deps.logger.error({ err: hubError.cause ?? error }, 'internal error');
  const details = hubError.details === undefined ? {} : { details: hubError.details };
  const retryAfterMs = hubError.details?.['retryAfterMs'];
  const retryAfter = typeof retryAfterMs === 'number' ? { 'retry-after': String(Math.ceil(retryAfterMs / 1000)) } : {};
  return {
    status: httpStatusOf(hubError.code),
    body: { error: { code: hubError.code, message: hubError.message, ...details } },
    headers: retryAfter,
  };
}
