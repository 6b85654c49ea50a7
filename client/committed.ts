import type { EventDraft, SessionEvent } from '../shared/events.ts';
import type { AckMessage } from '../shared/protocol.ts';
import { SessionLogError } from '../shared/errors.ts';
import { normalizeDraft } from '../shared/normalize-draft.ts';
import { ClientErrorCode, HubClientError } from './errors.ts';
import type { OutgoingDraft } from './outbox.ts';

/**
 * Copy a writer's draft for the wire: `data` checked as lossless JSON and deep-frozen (so later changes to the
 * caller's objects cannot leak into a retry), `surfaceOp` defaulted to `'append'` on surface types, like the core.
 */
export function prepareDraft(draft: EventDraft, index: number): OutgoingDraft {
  if (typeof draft !== 'object' || draft === null || typeof draft.type !== 'string') {
    throw new HubClientError('INVALID_EVENT', `events[${index}] needs a string type`);
  }
  try {
    return normalizeDraft(draft);
  } catch (error) {
    if (error instanceof SessionLogError) {
      throw new HubClientError(error.code === 'INVALID_JSON' ? 'INVALID_JSON' : 'INVALID_EVENT', error.message, {
        details: { index, ...(error.path === undefined ? {} : { path: error.path }) },
        cause: error,
      });
    }
    throw error;
  }
}

/** The committed events of an acknowledged append: the drafts with the ack's seqs and commit time. */
export function committedEvents(drafts: readonly OutgoingDraft[], ack: AckMessage): SessionEvent[] {
  if (ack.lastSeq - ack.firstSeq + 1 !== drafts.length) {
    throw new HubClientError(
      ClientErrorCode.PROTOCOL,
      `ack covers seqs ${ack.firstSeq}..${ack.lastSeq} for ${drafts.length} events`,
      { sessionId: ack.sessionId },
    );
  }
  return drafts.map((draft, index) => {
    const { type, data, ...surface } = draft;
    return Object.freeze({ seq: ack.firstSeq + index, type, time: ack.time, data, ...surface }) as SessionEvent;
  });
}
