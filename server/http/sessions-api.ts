import type { IncomingMessage } from 'node:http';
import type { HttpReply } from './http-reply.ts';
import { HubErrorCode } from '../../shared/protocol.ts';
import { adoptDecodedJson } from '../../shared/freeze-json.ts';
import { parseClientMessage } from '../../shared/protocol-parse.ts';
import type { AppendPipeline } from '../append/pipeline.ts';
import type { HubAction, HubAuth, HubPrincipal } from '../auth/auth-seam.ts';
import type { HubLimits } from '../limits/limits.ts';
import type { PrincipalRateLimits } from '../limits/principal-rate.ts';
import { readBody } from './body.ts';
import { eventPageReply } from './event-page.ts';
import type { ConcurrencySlots } from '../limits/concurrency-slots.ts';
import type { BrowserPolicy } from './browser-guard.ts';
import { HubError } from '../hub-error.ts';
import type { Logger } from '../logger.ts';
import type { HubMetrics } from '../metrics.ts';
import { requestToken } from '../auth/request-token.ts';
import type { EventStore } from '../store/event-store.ts';
import { validateSessionId } from '../store/session-id.ts';
import { measureAppend } from '../append/append-metrics.ts';
import { requestUrl } from '../request-url.ts';
import { snapshotReply } from './snapshot-route.ts';
import { rethrowUnlessExpired, unlessExpired } from './expired-reads.ts';
import type { SnapshotSource } from '../snapshot/snapshot-source.ts';
import { listingQuery, listSessionPage, type ArchivedSessionSource } from './session-listing.ts';
import { patchMetadata } from '../append/metadata-patch.ts';
import { redactReply } from './redact-route.ts';
import type { ForkService } from '../append/fork-session.ts';
import { createFork, listForks, type ForkRouteDeps } from './fork-route.ts';
import { erasureReply } from './erasure-route.ts';
import { archiveReply, restoreReply, type ArchiveNow, type RestoreNow } from './archive-route.ts';
import { ackFields } from '../append/outcome.ts';

export interface HttpRoutesDeps {
  readonly store: EventStore;
  readonly pipeline: AppendPipeline;
  readonly auth: HubAuth;
  /** Which `Host` and `Origin` values the HTTP API answers (open hubs: loopback; see `ResolvedHubConfig`). */
  readonly browserPolicy: BrowserPolicy;
  /** The node's per-principal append rate, shared with the WebSocket connections. */
  readonly principalRate: PrincipalRateLimits;
  readonly limits: HubLimits;
  readonly metrics: HubMetrics;
  readonly logger: Logger;
  readonly nodeName: string;
  readonly isShuttingDown: () => boolean;
  /** A session was deleted through this node: drop what the node holds for it. */
  readonly onSessionDeleted: (sessionId: string) => void;
  /** Makes forks (`POST /v1/sessions/:id/forks`; server/append/fork-session.ts). */
  readonly fork: ForkService;
  /** Where `GET /v1/sessions/:id/snapshot` reads (absent: that route answers NOT_FOUND). */
  readonly snapshots?: SnapshotSource;
  /** The cold tier's sessions, merged into `GET /v1/sessions` (absent: the store's sessions only). */
  readonly archive?: ArchivedSessionSource;
  /** `POST /v1/sessions/:id/archive` runs this (absent: the hub has no archive, NOT_FOUND). */
  readonly archiveNow?: ArchiveNow;
  /** `POST /v1/sessions/:id/restore` runs this (absent: the hub has no archive, NOT_FOUND). */
  readonly restoreNow?: RestoreNow;
}

/** What the session routes need besides `HttpRoutesDeps`: state the HTTP handler keeps for the node. */
export interface SessionApiDeps extends HttpRoutesDeps {
  /** Event pages being read and written (`maxConcurrentPageReads`). */
  readonly pageSlots: ConcurrencySlots;
}

export interface SessionRoute {
  readonly route: string;
  readonly allowed: string;
  readonly run: () => Promise<HttpReply>;
}

/** Session id used to authorize the admin listing (which concerns no one session). */
export const ALL_SESSIONS = '*';

const sessionsPath = '/v1/sessions';
const defaultPageLimit = 100;
/** Largest `PATCH /v1/sessions/:id` body: a patch within `METADATA_LIMITS` is far smaller. */
const METADATA_BODY_BYTES = 64 * 1024;

/**
 * The session routes: `GET /v1/sessions` (admin: list), `GET|PATCH|DELETE /v1/sessions/:id` (head; metadata;
 * admin: delete), `GET /v1/sessions/:id/metadata`, `GET|POST /v1/sessions/:id/events` (page; append),
 * `GET /v1/sessions/:id/presence` (watchers), `POST /v1/sessions/:id/redactions` (redact, redact-route.ts),
 * `POST /v1/sessions/:id/erasure` (redact grant; erasure-route.ts). Session ids are percent-encoded path segments.
 */
export function sessionRoute(
  method: string,
  url: URL,
  request: IncomingMessage,
  deps: SessionApiDeps,
): SessionRoute | undefined {
  const path = url.pathname;
  if (path === sessionsPath) {
    return { route: 'GET /v1/sessions', allowed: 'GET', run: () => listSessions(request, deps) };
  }
  if (!path.startsWith(`${sessionsPath}/`)) return undefined;
  const rest = path.slice(sessionsPath.length + 1);
  if (rest.endsWith('/presence')) {
    const rawId = rest.slice(0, -'/presence'.length);
    return { route: 'GET /v1/sessions/:id/presence', allowed: 'GET', run: () => sessionPresence(rawId, request, deps) };
  }
  if (rest.endsWith('/snapshot')) {
    const rawId = rest.slice(0, -'/snapshot'.length);
    return {
      route: 'GET /v1/sessions/:id/snapshot',
      allowed: 'GET',
      run: () => readSnapshot(rawId, url, request, deps).then((reply) => unlessExpired(deps.store, reply)),
    };
  }
  if (rest.endsWith('/redactions')) {
    const rawId = rest.slice(0, -'/redactions'.length);
    return {
      route: 'POST /v1/sessions/:id/redactions',
      allowed: 'POST',
      run: async () => {
        const sessionId = decodeSessionId(rawId);
        return redactReply(sessionId, await authorize(request, sessionId, 'redact', deps), request, deps);
      },
    };
  }
  if (rest.endsWith('/forks')) {
    const rawId = rest.slice(0, -'/forks'.length);
    const post = method === 'POST';
    return {
      route: post ? 'POST /v1/sessions/:id/forks' : 'GET /v1/sessions/:id/forks',
      allowed: 'GET,POST',
      run: async () => {
        const sessionId = decodeSessionId(rawId);
        const routeDeps = forkRouteDeps(request, deps);
        return post ? createFork(sessionId, request, routeDeps) : listForks(sessionId, routeDeps);
      },
    };
  }
  if (rest.endsWith('/events')) {
    const rawId = rest.slice(0, -'/events'.length);
    if (method === 'POST') {
      return {
        route: 'POST /v1/sessions/:id/events',
        allowed: 'GET,POST',
        run: () => appendEvents(rawId, request, deps),
      };
    }
    return {
      route: 'GET /v1/sessions/:id/events',
      allowed: 'GET,POST',
      run: () => readEvents(rawId, url, request, deps).then((reply) => unlessExpired(deps.store, reply)),
    };
  }
  if (rest.endsWith('/archive')) {
    const rawId = rest.slice(0, -'/archive'.length);
    return {
      route: 'POST /v1/sessions/:id/archive',
      allowed: 'POST',
      run: async () => archiveReply(await authorized(request, rawId, 'admin', deps), deps.archiveNow),
    };
  }
  if (rest.endsWith('/restore')) {
    const rawId = rest.slice(0, -'/restore'.length);
    return {
      route: 'POST /v1/sessions/:id/restore',
      allowed: 'POST',
      run: async () =>
        restoreReply(await authorized(request, rawId, 'admin', deps), requestUrl(request), deps.restoreNow),
    };
  }
  if (rest.endsWith('/metadata')) {
    const rawId = rest.slice(0, -'/metadata'.length);
    return { route: 'GET /v1/sessions/:id/metadata', allowed: 'GET', run: () => readMetadata(rawId, request, deps) };
  }
  if (rest.endsWith('/erasure')) {
    const rawId = rest.slice(0, -'/erasure'.length);
    const run = async () => {
      const sessionId = decodeSessionId(rawId);
      return erasureReply(sessionId, await authorize(request, sessionId, 'redact', deps), request, deps);
    };
    return { route: 'POST /v1/sessions/:id/erasure', allowed: 'POST', run };
  }
  const allowed = 'GET,PATCH,DELETE';
  if (method === 'DELETE') {
    return { route: 'DELETE /v1/sessions/:id', allowed, run: () => deleteSession(rest, request, deps) };
  }
  if (method === 'PATCH') {
    return { route: 'PATCH /v1/sessions/:id', allowed, run: () => writeMetadata(rest, request, deps) };
  }
  return {
    route: 'GET /v1/sessions/:id',
    allowed,
    run: () => sessionHead(rest, request, deps).then((reply) => unlessExpired(deps.store, reply)),
  };
}

function decodeSessionId(rawSessionId: string): string {
  let sessionId: string;
  try {
    sessionId = decodeURIComponent(rawSessionId);
  } catch {
    throw new HubError(HubErrorCode.BAD_REQUEST, 'the session id is not valid percent-encoding');
  }
  if (sessionId.length === 0) throw new HubError(HubErrorCode.BAD_REQUEST, 'the session id is empty');
  return sessionId;
}

/** The principal of the request's token (UNAUTHORIZED, TOKEN_EXPIRED… when it has none that holds). */
function authenticate(request: IncomingMessage, deps: HttpRoutesDeps): Promise<HubPrincipal> {
  return Promise.resolve(
    deps.auth.authenticate(requestToken(request), {
      transport: 'http',
      headers: request.headers,
      url: request.url ?? '/',
      remoteAddress: request.socket.remoteAddress,
    }),
  );
}

/** Authenticate the request's token and check that it may do `action` on `sessionId` (FORBIDDEN if not). */
export async function authorize(
  request: IncomingMessage,
  sessionId: string,
  action: HubAction,
  deps: HttpRoutesDeps,
): Promise<HubPrincipal> {
  const principal = await authenticate(request, deps);
  if (!(await deps.auth.authorize(principal, action, sessionId))) {
    throw new HubError(HubErrorCode.FORBIDDEN, `${principal.subject} may not ${action} ${sessionId}`);
  }
  return principal;
}

/** The fork routes' view of the node, authorizing with this request's token (authenticated once). */
function forkRouteDeps(request: IncomingMessage, deps: HttpRoutesDeps): ForkRouteDeps {
  let principal: Promise<HubPrincipal> | undefined;
  return {
    store: deps.store,
    fork: deps.fork,
    principalRate: deps.principalRate,
    maxBodyBytes: deps.limits.maxFrameBytes,
    authorize: async (action, sessionId) => {
      principal ??= authenticate(request, deps);
      const who = await principal;
      if (!(await deps.auth.authorize(who, action, sessionId))) {
        throw new HubError(HubErrorCode.FORBIDDEN, `${who.subject} may not ${action} ${sessionId}`);
      }
      return who;
    },
  };
}

async function authorized(
  request: IncomingMessage,
  rawSessionId: string,
  action: HubAction,
  deps: HttpRoutesDeps,
): Promise<string> {
  const sessionId = decodeSessionId(rawSessionId);
  await authorize(request, sessionId, action, deps);
  return sessionId;
}

/**
 * `GET /v1/sessions[?prefix=acme/&label=k=v&limit=&after=]`: a page of the sessions, most recently active first
 * (session-listing.ts). Every session: admin on `*`; `?prefix=acme/`: admin on `acme/*` (a tenant administrator).
 * The prefix must end with `/`, as grant patterns do.
 */
async function listSessions(request: IncomingMessage, deps: HttpRoutesDeps): Promise<HttpReply> {
  const params = requestUrl(request)?.searchParams ?? new URLSearchParams();
  const prefix = params.get('prefix') ?? undefined;
  if (prefix !== undefined && (!prefix.endsWith('/') || prefix.length < 2 || prefix.length > 512)) {
    throw new HubError(HubErrorCode.BAD_REQUEST, 'query parameter "prefix" must end with "/" (e.g. "acme/")');
  }
  const query = listingQuery(params, prefix);
  await authorize(request, prefix === undefined ? ALL_SESSIONS : `${prefix}*`, 'admin', deps);
  return { status: 200, body: await listSessionPage(deps.store, query, deps.archive) };
}

/** `GET /v1/sessions/:id/metadata` (read grant): the session's metadata (NOT_FOUND when it does not exist). */
async function readMetadata(rawSessionId: string, request: IncomingMessage, deps: HttpRoutesDeps): Promise<HttpReply> {
  const sessionId = await authorized(request, rawSessionId, 'read', deps);
  const metadata = await deps.store.metadata.get(sessionId);
  if (metadata === undefined) throw new HubError(HubErrorCode.NOT_FOUND, `session ${sessionId} does not exist`);
  return { status: 200, body: { sessionId, metadata } };
}

/** `PATCH /v1/sessions/:id` (append grant): merge a metadata patch `{ title?, labels? }` (metadata-patch.ts). */
async function writeMetadata(rawSessionId: string, request: IncomingMessage, deps: HttpRoutesDeps): Promise<HttpReply> {
  const sessionId = decodeSessionId(rawSessionId);
  const principal = await authorize(request, sessionId, 'append', deps);
  // A metadata write counts against the principal's append rate, as on the socket.
  deps.principalRate.checkAppend(principal, request.socket.remoteAddress);
  const body = await readBody(request, METADATA_BODY_BYTES);
  const metadata = await patchMetadata(deps.store.metadata, sessionId, body);
  return { status: 200, body: { sessionId, metadata } };
}

async function deleteSession(rawSessionId: string, request: IncomingMessage, deps: HttpRoutesDeps): Promise<HttpReply> {
  const sessionId = await authorized(request, rawSessionId, 'admin', deps);
  const deleted = await deps.store.deleteSession(sessionId);
  deps.onSessionDeleted(sessionId);
  deps.logger.info({ sessionId, deleted }, 'session deleted');
  return { status: deleted ? 200 : 404, body: { sessionId, deleted } };
}

async function sessionHead(rawSessionId: string, request: IncomingMessage, deps: HttpRoutesDeps): Promise<HttpReply> {
  const sessionId = await authorized(request, rawSessionId, 'read', deps);
  const [head, { lineage }] = await Promise.all([deps.store.head(sessionId), deps.store.forks.lineage(sessionId)]);
  const { epoch, headSeq, firstSeq } = head;
  // `firstSeq` only for a trimmed log (seqs below it are GONE); the lineage only for a fork.
  const trimmed = firstSeq === undefined ? {} : { firstSeq };
  const fork = lineage === undefined ? {} : { parent: lineage.parent, forkSeq: lineage.forkSeq, depth: lineage.depth };
  return { status: 200, body: { sessionId, epoch, headSeq, ...trimmed, ...fork } };
}

/** `GET /v1/sessions/:id/presence`: who watches the session, on every node (read grant). */
async function sessionPresence(
  rawSessionId: string,
  request: IncomingMessage,
  deps: HttpRoutesDeps,
): Promise<HttpReply> {
  const sessionId = await authorized(request, rawSessionId, 'read', deps);
  validateSessionId(sessionId);
  const watchers = await deps.store.presence.list(sessionId);
  return { status: 200, body: { sessionId, watchers } };
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

/** `GET /v1/sessions/:id/snapshot[?atOrBefore=N]` (read grant): see snapshot-route.ts. */
async function readSnapshot(
  rawSessionId: string,
  url: URL,
  request: IncomingMessage,
  deps: HttpRoutesDeps,
): Promise<HttpReply> {
  const sessionId = await authorized(request, rawSessionId, 'read', deps);
  validateSessionId(sessionId);
  const atOrBefore = url.searchParams.has('atOrBefore') ? queryIndex(url, 'atOrBefore', 0) : undefined;
  return snapshotReply(sessionId, atOrBefore, deps.snapshots);
}

async function readEvents(
  rawSessionId: string,
  url: URL,
  request: IncomingMessage,
  deps: SessionApiDeps,
): Promise<HttpReply> {
  const sessionId = await authorized(request, rawSessionId, 'read', deps);
  const from = queryIndex(url, 'from', 0);
  const limit = Math.min(queryIndex(url, 'limit', defaultPageLimit), deps.limits.catchUpPageSize);
  if (limit < 1) throw new HubError(HubErrorCode.BAD_REQUEST, 'query parameter "limit" must be at least 1');
  return eventPageReply({ sessionId, from, limit }, deps).catch((error: unknown) =>
    rethrowUnlessExpired(deps.store, sessionId, error),
  );
}

async function appendEvents(rawSessionId: string, request: IncomingMessage, deps: HttpRoutesDeps): Promise<HttpReply> {
  const sessionId = decodeSessionId(rawSessionId);
  const principal = await authorize(request, sessionId, 'append', deps);
  deps.principalRate.checkAppend(principal, request.socket.remoteAddress);
  const keyOwner = principal.subject;
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
  // Import mode (events keep the given commit time) rewrites history's timeline: admins only.
  if (message.time !== undefined) await authorize(request, sessionId, 'admin', deps);
  // The events were decoded from this request's body and nothing else holds them: validation freezes them in place.
  for (const event of message.events) adoptDecodedJson(event.data);
  const outcome = await measureAppend(deps.metrics, () => deps.pipeline.append({ ...message, keyOwner }));
  return { status: outcome.duplicate ? 200 : 201, body: ackFields(outcome) };
}
