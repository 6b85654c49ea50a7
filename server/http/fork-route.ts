import type { IncomingMessage } from 'node:http';
import { HubErrorCode } from '../../shared/protocol.ts';
import { parseClientMessage } from '../../shared/protocol-parse.ts';
import type { ForkService } from '../append/fork-session.ts';
import type { HubAction, HubPrincipal } from '../auth/auth-seam.ts';
import { HubError } from '../hub-error.ts';
import type { PrincipalRateLimits } from '../limits/principal-rate.ts';
import type { EventStore } from '../store/event-store.ts';
import { validateSessionId } from '../store/session-id.ts';
import { readBody } from './body.ts';
import type { HttpReply } from './http-reply.ts';

/** What the fork routes need of the node. */
export interface ForkRouteDeps {
  readonly store: EventStore;
  readonly fork: ForkService;
  readonly principalRate: PrincipalRateLimits;
  readonly maxBodyBytes: number;
  /** Authenticates the request (once) and checks one grant; FORBIDDEN if missing. */
  readonly authorize: (action: HubAction, sessionId: string) => Promise<HubPrincipal>;
}

/**
 * `POST /v1/sessions/:id/forks` `{ atSeq, newId?, repair? }`: fork the session (read on it, append on the new id);
 * 201 with the fork and its lineage, 200 when `newId` was already this very fork (`duplicate: true`).
 */
export async function createFork(sessionId: string, request: IncomingMessage, deps: ForkRouteDeps): Promise<HttpReply> {
  const principal = await deps.authorize('read', sessionId);
  deps.principalRate.checkAppend(principal, request.socket.remoteAddress);
  const body = await readBody(request, deps.maxBodyBytes);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HubError(HubErrorCode.BAD_REQUEST, 'the body must be an object { atSeq, newId?, repair? }');
  }
  const message = parseClientMessage({ ...body, type: 'fork', id: 0, sessionId });
  if (message.type !== 'fork') throw new HubError(HubErrorCode.INTERNAL, 'parsed a fork as something else');
  const authorize = async (action: HubAction, id: string): Promise<void> => {
    await deps.authorize(action, id);
  };
  const outcome = await deps.fork(message, authorize, principal.subject);
  return { status: outcome.duplicate ? 200 : 201, body: outcome };
}

/**
 * `GET /v1/sessions/:id/forks` (read grant): the session's lineage (`parent`, `forkSeq`, `depth`, or none) and the
 * ids of its forks (direct children, sorted).
 */
export async function listForks(sessionId: string, deps: ForkRouteDeps): Promise<HttpReply> {
  await deps.authorize('read', sessionId);
  validateSessionId(sessionId);
  const [{ epoch, lineage }, forks] = await Promise.all([
    deps.store.forks.lineage(sessionId),
    deps.store.forks.list(sessionId),
  ]);
  if (epoch === undefined && forks.length === 0) {
    throw new HubError(HubErrorCode.NOT_FOUND, `session ${sessionId} does not exist`);
  }
  const { parent, forkSeq, depth } = lineage ?? {};
  return { status: 200, body: { sessionId, epoch: epoch ?? '', parent, forkSeq, depth, forks: forks.sort() } };
}
