import { HubErrorCode } from '../../shared/protocol.ts';
import { HubError } from '../hub-error.ts';
import type { EventStore } from '../store/event-store.ts';
import { refuseExpired } from '../store/retention-store.ts';
import type { HttpReply } from './http-reply.ts';

/**
 * A read route's reply (head, event page, snapshot), unless it shows a session without an epoch that retention
 * expired: then SESSION_EXPIRED (410) is thrown instead, so an expired session never reads as an empty log. Only
 * such replies (`epoch: ''`) cost the extra read of the session's tombstone.
 */
export async function unlessExpired(store: EventStore, reply: HttpReply): Promise<HttpReply> {
  const body = reply.body as { readonly sessionId?: unknown; readonly epoch?: unknown } | null | undefined;
  if (reply.status !== 200 || typeof body !== 'object' || body === null) return reply;
  if (body.epoch !== '' || typeof body.sessionId !== 'string') return reply;
  await refuseExpired(store.retention, body.sessionId);
  return reply;
}

/**
 * `error` of a read of `sessionId`, unless it is a SEQ_OUT_OF_RANGE of a session with no events (`headSeq` -1) that
 * retention expired: then SESSION_EXPIRED. Always throws.
 */
export async function rethrowUnlessExpired(store: EventStore, sessionId: string, error: unknown): Promise<never> {
  if (error instanceof HubError && error.code === HubErrorCode.SEQ_OUT_OF_RANGE && error.details?.['headSeq'] === -1) {
    await refuseExpired(store.retention, sessionId);
  }
  throw error;
}
