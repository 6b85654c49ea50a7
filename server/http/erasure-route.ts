import type { IncomingMessage } from 'node:http';
import type { HubPrincipal } from '../auth/auth-seam.ts';
import { readBody } from './body.ts';
import type { HttpReply } from './http-reply.ts';
import { bodyObject, ERASURE_LIMITS, eraseSession, onlyFields, parseReason, type ErasureDeps } from './erasure.ts';
import { parseSubjectErasure, runSubjectErasure } from './subject-erasure.ts';

/**
 * `POST /v1/sessions/:id/erasure` `{ reason }` (the `redact` grant on the session, which admins have; checked by the
 * caller before the body is read): erases the session (erasure.ts) and answers what was removed. Idempotent: a session
 * with nothing left answers `erased: false`.
 */
export async function erasureReply(
  sessionId: string,
  principal: HubPrincipal,
  request: IncomingMessage,
  deps: ErasureDeps,
): Promise<HttpReply> {
  const body = bodyObject(await readBody(request, ERASURE_LIMITS.bodyBytes), '{ reason }');
  onlyFields(body, ['reason']);
  const reason = parseReason(body['reason']);
  const erased = await eraseSession(deps, sessionId, { subject: principal.subject, reason });
  return { status: 200, body: erased };
}

/**
 * `POST /v1/erasures` (subject-erasure.ts): the `redact` grant on every session, or on `<prefix>*` when the body names
 * a prefix. The body is bounded and checked before the grant is (the grant depends on its prefix); a refused request
 * reads no session.
 */
export async function subjectErasureReply(
  request: IncomingMessage,
  deps: ErasureDeps,
  authorize: (scope: string) => Promise<HubPrincipal>,
): Promise<HttpReply> {
  const parsed = parseSubjectErasure(await readBody(request, ERASURE_LIMITS.bodyBytes));
  const principal = await authorize(parsed.prefix === undefined ? '*' : `${parsed.prefix}*`);
  deps.logger.info(
    { audit: 'erasure', by: principal.subject, match: parsed.match, dryRun: parsed.dryRun, prefix: parsed.prefix },
    parsed.dryRun ? 'subject erasure: dry run' : 'subject erasure',
  );
  return { status: 200, body: await runSubjectErasure(deps, parsed, principal.subject) };
}
