// The events before the ones the subscription holds, paged in over HTTP (`GET /v1/sessions/:id/events`) on demand:
// a session opened from the hub's snapshot holds only the tail, older rows come when the user scrolls or travels back.
import type { SessionEvent } from '../../shared/index.ts';
import { getJson } from './hub-access.ts';

/** Events asked for per request when the user scrolls up (the hub may answer fewer: see docs/protocol.md). */
export const OLDER_PAGE_EVENTS = 500;

interface EventPage {
  readonly events: readonly SessionEvent[];
  readonly next: number;
}

/**
 * The events of seqs `from..until` (inclusive), in order, read page after page; fails with the hub's error code when
 * a page is refused, or when the log has fewer events than asked (it was rewritten meanwhile).
 */
export async function readEventRange(
  sessionId: string,
  from: number,
  until: number,
  token: string | undefined,
): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  let next = from;
  while (next <= until) {
    const limit = Math.min(OLDER_PAGE_EVENTS, until - next + 1);
    const path = `/v1/sessions/${encodeURIComponent(sessionId)}/events?from=${next}&limit=${limit}`;
    const answer = await getJson<EventPage>(path, token);
    if (!answer.ok) throw new Error(`${answer.code}: ${answer.message}`);
    const page = answer.body.events.filter((event) => event.seq >= next && event.seq <= until);
    if (page.length === 0) throw new Error(`the log holds no event at seq ${next} any more`);
    events.push(...page);
    next = page[page.length - 1]!.seq + 1;
  }
  return events;
}
