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

/**
 * The seqs the hub committed right behind an acknowledged append's events, in the same commit (`ack.trailerEvents`:
 * the audit of a redaction at append), keyed by the events array `committedEvents` returned for that ack. A writer
 * numbering its appends (`AgentWriter`) reads them with `trailerSeqsOf` to move its next seq past them.
 */
const trailers = new WeakMap<readonly SessionEvent[], readonly number[]>();

/** The seqs the append that returned `events` (from `HubClient.append`) left to a trailer; empty when none. */
export function trailerSeqsOf(events: readonly SessionEvent[]): readonly number[] {
  return trailers.get(events) ?? [];
}

/** The committed events of an acknowledged append: the drafts with the ack's seqs and commit time. */
export function committedEvents(drafts: readonly OutgoingDraft[], ack: AckMessage): SessionEvent[] {
  const events = ackedEvents(drafts, ack);
  const count = ack.trailerEvents ?? 0;
  if (count > 0) trailers.set(events, Object.freeze(Array.from({ length: count }, (_, i) => ack.lastSeq + 1 + i)));
  return events;
}

function ackedEvents(drafts: readonly OutgoingDraft[], ack: AckMessage): SessionEvent[] {
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
