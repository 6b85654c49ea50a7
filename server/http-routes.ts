import type { IncomingMessage, ServerResponse } from 'node:http';
import { HubErrorCode, parseClientMessage } from '../shared/index.ts';
import type { AppendPipeline } from './append-pipeline.ts';
import type { HubAction, HubAuth, HubLimits } from './config.ts';
import { readBody } from './http-body.ts';
import { HubError, httpStatusOf, toHubError } from './hub-error.ts';
import type { Logger } from './logger.ts';
import type { HubMetrics } from './metrics.ts';
import { requestToken } from './request-token.ts';
import type { EventStore } from './store/event-store.ts';

export interface HttpRoutesDeps {
  readonly store: EventStore;
  readonly pipeline: AppendPipeline;
  readonly auth: HubAuth;
  readonly limits: HubLimits;
  readonly metrics: HubMetrics;
  readonly logger: Logger;
  readonly nodeName: string;
  readonly isShuttingDown: () => boolean;
}

interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly contentType?: string;
}

const sessionsPrefix = '/v1/sessions/';
const readyTimeoutMs = 2000;
const defaultPageLimit = 100;

/** The HTTP API of a hub node: health, readiness, metrics and the session REST routes. */
export function createHttpHandler(deps: HttpRoutesDeps): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const url = new URL(request.url ?? '/', 'http://hub');
    const { route, run } = routeOf(request.method ?? 'GET', url, request, deps);
    run()
      .catch((error: unknown) => errorReply(error, deps))
      .then((reply) => {
        deps.metrics.httpRequests.inc({ route, status: String(reply.status) });
        const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
        response.writeHead(reply.status, {
          'content-type': reply.contentType ?? 'application/json; charset=utf-8',
          'cache-control': 'no-store',
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
): { route: string; run: () => Promise<Reply> } {
  const path = url.pathname;
  const only = (allowed: string, route: string, run: () => Promise<Reply>) => ({
    route,
    run: method === allowed ? run : () => Promise.resolve(methodNotAllowed(allowed, route)),
  });
  if (path === '/healthz')
    return only('GET', path, async () => ({ status: 200, body: { status: 'ok', node: deps.nodeName } }));
  if (path === '/readyz') return only('GET', path, () => readiness(deps));
  if (path === '/metrics') {
    return only('GET', path, async () => ({
      status: 200,
      body: await deps.metrics.registry.metrics(),
      contentType: deps.metrics.registry.contentType,
    }));
  }
  if (path.startsWith(sessionsPrefix)) {
    const rest = path.slice(sessionsPrefix.length);
    if (rest.endsWith('/events')) {
      const sessionId = rest.slice(0, -'/events'.length);
      if (method === 'POST')
        return { route: 'POST /v1/sessions/:id/events', run: () => appendEvents(sessionId, request, deps) };
      return only('GET', '/v1/sessions/:id/events', () => readEvents(sessionId, url, request, deps));
    }
    return only('GET', '/v1/sessions/:id', () => sessionHead(rest, request, deps));
  }
  return { route: 'other', run: () => Promise.reject(new HubError(HubErrorCode.NOT_FOUND, `no route ${path}`)) };
}

async function readiness(deps: HttpRoutesDeps): Promise<Reply> {
  if (deps.isShuttingDown()) return { status: 503, body: { status: 'shutting-down', node: deps.nodeName } };
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      deps.store.ping(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in ${readyTimeoutMs} ms`)), readyTimeoutMs);
      }),
    ]);
    return { status: 200, body: { status: 'ready', node: deps.nodeName, engine: deps.store.engine } };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      status: 503,
      body: { status: 'unavailable', node: deps.nodeName, engine: deps.store.engine, error: message },
    };
  } finally {
    clearTimeout(timer);
  }
}

async function authorized(
  request: IncomingMessage,
  rawSessionId: string,
  action: HubAction,
  deps: HttpRoutesDeps,
): Promise<string> {
  let sessionId: string;
  try {
    sessionId = decodeURIComponent(rawSessionId);
  } catch {
    throw new HubError(HubErrorCode.BAD_REQUEST, 'the session id is not valid percent-encoding');
  }
  if (sessionId.length === 0) throw new HubError(HubErrorCode.BAD_REQUEST, 'the session id is empty');
  const principal = await deps.auth.authenticate(requestToken(request), {
    transport: 'http',
    headers: request.headers,
    url: request.url ?? '/',
    remoteAddress: request.socket.remoteAddress,
  });
  if (!(await deps.auth.authorize(principal, action, sessionId))) {
    throw new HubError(HubErrorCode.FORBIDDEN, `${principal.subject} may not ${action} ${sessionId}`);
  }
  return sessionId;
}

async function sessionHead(rawSessionId: string, request: IncomingMessage, deps: HttpRoutesDeps): Promise<Reply> {
  const sessionId = await authorized(request, rawSessionId, 'read', deps);
  const head = await deps.store.head(sessionId);
  return { status: 200, body: { sessionId, epoch: head.epoch, headSeq: head.headSeq } };
}

function queryIndex(url: URL, name: string, fallback: number): number {
  const text = url.searchParams.get(name);
  if (text === null) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value)) {
    throw new HubError(HubErrorCode.BAD_REQUEST, `query parameter "${name}" must be a non-negative integer`);
  }
  return value;
}

async function readEvents(
  rawSessionId: string,
  url: URL,
  request: IncomingMessage,
  deps: HttpRoutesDeps,
): Promise<Reply> {
  const sessionId = await authorized(request, rawSessionId, 'read', deps);
  const from = queryIndex(url, 'from', 0);
  const limit = Math.min(queryIndex(url, 'limit', defaultPageLimit), deps.limits.catchUpPageSize);
  if (limit < 1) throw new HubError(HubErrorCode.BAD_REQUEST, 'query parameter "limit" must be at least 1');
  const head = await deps.store.head(sessionId);
  if (from > head.headSeq + 1) {
    throw new HubError(HubErrorCode.SEQ_OUT_OF_RANGE, `from ${from} lies beyond the head + 1 (${head.headSeq + 1})`, {
      headSeq: head.headSeq,
    });
  }
  const events = await deps.store.read(sessionId, from, limit);
  const next = events.length === 0 ? from : events[events.length - 1]!.seq + 1;
  const headSeq = Math.max(head.headSeq, next - 1);
  return { status: 200, body: { sessionId, epoch: head.epoch, headSeq, events, next } };
}

async function appendEvents(rawSessionId: string, request: IncomingMessage, deps: HttpRoutesDeps): Promise<Reply> {
  const sessionId = await authorized(request, rawSessionId, 'append', deps);
  const body = await readBody(request, deps.limits.maxFrameBytes);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HubError(
      HubErrorCode.BAD_REQUEST,
      'the body must be an object { events, expectedSeq?, idempotencyKey? }',
    );
  }
  const headerKey = request.headers['idempotency-key'];
  const message = parseClientMessage({
    idempotencyKey: typeof headerKey === 'string' ? headerKey : undefined,
    ...body,
    type: 'append',
    id: 0,
    sessionId,
  });
  if (message.type !== 'append') throw new HubError(HubErrorCode.INTERNAL, 'parsed an append as something else');
  const started = performance.now();
  try {
    const outcome = await deps.pipeline.append(message);
    deps.metrics.appends.inc({ result: outcome.duplicate ? 'duplicate' : 'committed' });
    if (outcome.events !== undefined) deps.metrics.eventsAppended.inc(outcome.events.length);
    const { epoch, firstSeq, lastSeq, time, duplicate } = outcome;
    return { status: duplicate ? 200 : 201, body: { sessionId, epoch, firstSeq, lastSeq, time, duplicate } };
  } catch (error) {
    deps.metrics.appends.inc({ result: 'error' });
    throw error;
  } finally {
    deps.metrics.appendDuration.observe((performance.now() - started) / 1000);
  }
}

function methodNotAllowed(allowed: string, route: string): Reply {
  const error = { code: HubErrorCode.BAD_REQUEST, message: `use ${allowed} on ${route}` };
  return { status: 405, body: { error } };
}

function errorReply(error: unknown, deps: HttpRoutesDeps): Reply {
  const hubError = toHubError(error);
  deps.metrics.errors.inc({ code: hubError.code });
  if (hubError.code === HubErrorCode.INTERNAL) deps.logger.error({ err: hubError.cause ?? error }, 'internal error');
  const status =
    typeof hubError.details?.['status'] === 'number' ? hubError.details['status'] : httpStatusOf(hubError.code);
  const details = hubError.details === undefined ? {} : { details: hubError.details };
  return { status, body: { error: { code: hubError.code, message: hubError.message, ...details } } };
}
