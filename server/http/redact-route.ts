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
import type { RedactionReply } from '../../shared/redaction.ts';

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
  await refuseInheritedSeqs(sessionId, seqs, deps.store);
  const result = await deps.store.redactions.redact({
    sessionId,
    seqs: seqs as number[],
    reason,
    by: principal.subject,
    ...(expectedEpoch === undefined ? {} : { expectedEpoch }),
  });
  return redactionReply(sessionId, result, deps);
}

/**
 * A fork's seqs `0..forkSeq` are its parent's (read through it, never copied): a redaction of them through the fork
 * changed nothing and answered them as `cold`, as if an archive held them. Refused instead, naming the parent, where
 * the redaction belongs (and shows in every fork); redacting the parent needs the grant on the parent.
 */
async function refuseInheritedSeqs(sessionId: string, seqs: readonly unknown[], store: EventStore): Promise<void> {
  const { lineage } = await store.forks.lineage(sessionId);
  if (lineage === undefined) return;
  const inherited = seqs.filter(
    (seq) => Number.isSafeInteger(seq) && (seq as number) >= 0 && (seq as number) <= lineage.forkSeq,
  );
  if (inherited.length === 0) return;
  throw new HubError(
    HubErrorCode.BAD_REQUEST,
    `seqs 0..${lineage.forkSeq} of fork ${sessionId} are its parent's (${lineage.parent}): redact them there ` +
      `(it shows in every fork); nothing redacted`,
    { parent: lineage.parent, forkSeq: lineage.forkSeq, count: inherited.length },
  );
}

function redactionReply(sessionId: string, result: RedactionResult, deps: RedactRouteDeps): HttpReply {
  switch (result.status) {
    case 'redacted': {
      const { epoch, seqs, unchanged, cold, auditSeq } = result;
      if (seqs.length > 0) deps.logger.info({ sessionId, seqs, auditSeq }, 'events redacted');
      const body: RedactionReply = { sessionId, epoch, seqs, unchanged, cold, auditSeq: auditSeq ?? null };
      return { status: 200, body };
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
