import type { IncomingMessage, ServerResponse } from 'node:http';
import { HubErrorCode } from '../../shared/protocol.ts';
import { httpStatusOf, toHubError } from '../hub-error.ts';
import { httpMethodLabel } from '../metrics.ts';
import { sessionRoute, type HttpReply, type HttpRoutesDeps } from './sessions-api.ts';
import { requestUrl } from './request-url.ts';
import { withTimeout } from '../../shared/timeout.ts';

export type { HttpReply, HttpRoutesDeps } from './sessions-api.ts';

const readyTimeoutMs = 2000;

/** The HTTP API of a hub node: health, readiness, metrics and the session routes (http-sessions.ts). */
export function createHttpHandler(deps: HttpRoutesDeps): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const url = requestUrl(request);
    const { route, run } =
      url === undefined
        ? { route: 'unparsable', run: () => Promise.resolve(badTarget()) }
        : routeOf(routedMethod(request.method), url, request, deps);
    run()
      .catch((error: unknown) => errorReply(error, deps))
      .then((reply) => {
        deps.metrics.httpRequests.inc({
          method: httpMethodLabel(request.method),
          handler: route,
          code: String(reply.status),
        });
        const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
        response.writeHead(reply.status, {
          'content-type': reply.contentType ?? 'application/json; charset=utf-8',
          'cache-control': 'no-store',
          ...reply.headers,
        });
        response.end(text);
      })
      .catch((error: unknown) => deps.logger.error({ err: error }, 'could not write an HTTP reply'));
  };
}

function routeOf(
  method: string,
  url: URL,
  request: IncomingMessage,
  deps: HttpRoutesDeps,
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
    return only('GET', path, async () => ({
      status: 200,
      body: await deps.metrics.registry.metrics(),
      contentType: deps.metrics.registry.contentType,
    }));
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
  return {
    status: httpStatusOf(hubError.code),
    body: { error: { code: hubError.code, message: hubError.message, ...details } },
  };
}
