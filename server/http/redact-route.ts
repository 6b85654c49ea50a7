import type { IncomingMessage } from 'node:http';
import { HubErrorCode } from '../../shared/protocol.ts';
import { HubError } from '../hub-error.ts';
import type { RedactionResult } from '../store/redaction-store.ts';
import type { HttpReply } from './http-reply.ts';
import { readBody } from './body.ts';
import type { EventStore } from '../store/event-store.ts';
import type { HubLimits } from '../limits/limits.ts';
import type { Logger } from '../logger.ts';
import type { HubPrincipal } from '../auth/auth-seam.ts';

/** What the route uses of the HTTP routes' dependencies. */
export interface RedactRouteDeps {
  readonly store: EventStore;
  readonly limits: HubLimits;
  readonly logger: Logger;
}

/** The body of `POST /v1/sessions/:id/redactions`: at most this many bytes (a 10^6-seq list is refused unread). */
export const MAX_REDACTION_BODY_BYTES = 256 * 1024;

/**
 * `POST /v1/sessions/:id/redactions` `{ seqs, reason, expectedEpoch? }` (grant `redact`, which admins have):
 * replaces the named events' data by placeholders and appends the audit event, in one atomic step
 * (`EventStore.redactions`). The caller is authorized before the body is read, so a principal without the grant
 * learns nothing about the session. Replies `200 { sessionId, epoch, seqs, unchanged, cold, auditSeq }`.
 */
export async function redactReply(
  sessionId: string,
  principal: HubPrincipal,
  request: IncomingMessage,
  deps: RedactRouteDeps,
): Promise<HttpReply> {
  const body = await readBody(request, Math.min(MAX_REDACTION_BODY_BYTES, deps.limits.maxFrameBytes));
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HubError(HubErrorCode.BAD_REQUEST, 'the body must be an object { seqs, reason, expectedEpoch? }');
  }
  const { seqs, reason, expectedEpoch } = body as Record<string, unknown>;
  if (!Array.isArray(seqs)) throw new HubError(HubErrorCode.BAD_REQUEST, '"seqs" must be an array of seqs');
  if (typeof reason !== 'string') throw new HubError(HubErrorCode.BAD_REQUEST, '"reason" must be a string');
  if (expectedEpoch !== undefined && typeof expectedEpoch !== 'string') {
    throw new HubError(HubErrorCode.BAD_REQUEST, '"expectedEpoch" must be a string');
  }
  const result = await deps.store.redactions.redact({
    sessionId,
    seqs: seqs as number[],
    reason,
    by: principal.subject,
    ...(expectedEpoch === undefined ? {} : { expectedEpoch }),
  });
  return redactionReply(sessionId, result, deps);
}

function redactionReply(sessionId: string, result: RedactionResult, deps: RedactRouteDeps): HttpReply {
  switch (result.status) {
    case 'redacted': {
      const { epoch, seqs, unchanged, cold, auditSeq } = result;
      if (seqs.length > 0) deps.logger.info({ sessionId, seqs, auditSeq }, 'events redacted');
      return { status: 200, body: { sessionId, epoch, seqs, unchanged, cold, auditSeq: auditSeq ?? null } };
    }
    case 'conflict':
      throw new HubError(HubErrorCode.SEQ_CONFLICT, 'the session is not in the expected epoch; nothing redacted', {
        epoch: result.epoch,
      });
    case 'out-of-range': {
      const shown = result.seqs.slice(0, 10).join(', ');
      throw new HubError(
        HubErrorCode.SEQ_OUT_OF_RANGE,
        `seqs beyond the session's head (${result.headSeq}): ${shown}; nothing redacted`,
        { headSeq: result.headSeq, count: result.seqs.length },
      );
    }
  }
}
