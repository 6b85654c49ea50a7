import type { SessionEvent } from '../../../shared/index.ts';
import type { EventStore, StoredPage } from '../event-store.ts';
import { decodeEventBody, toSessionEvent } from './event-codec.ts';

/** A page of a session's events together with the epoch they belong to (read atomically). */
export interface EventPage {
  /** The session's epoch at the time of the read; undefined when the session has none (never accessed, deleted). */
  readonly epoch: string | undefined;
  /** Up to `limit` events with seq ≥ `fromSeq`, ascending; empty when `epoch` is undefined. */
  readonly events: readonly SessionEvent[];
}

/** A stored body, its seq and commit time as the event it is; a bad body throws `StoreDataError` naming the seq. */
export function decodeStoredEvent(sessionId: string, seq: number, body: Uint8Array, time: number): SessionEvent {
  return toSessionEvent(decodeEventBody(body, `session ${sessionId} seq ${seq}`), seq, time);
}

/** The events of a stored page (`EventStore.readStoredPage`), each body verified and decoded. */
export function decodeStoredPage(sessionId: string, page: StoredPage): EventPage {
  const { epoch, firstSeq, bodies, times } = page;
  return {
    epoch,
    events: bodies.map((body, index) => decodeStoredEvent(sessionId, firstSeq + index, body, times[index]!)),
  };
}

/**
 * Up to `limit` events with seq ≥ `fromSeq` and the epoch they belong to, in one atomic read: the store's one page
 * read (`readStoredPage`), decoded. A caller positioned in one epoch can tell that the events belong to another one
 * (the session was deleted and rewritten). Never creates an epoch.
 */
export async function readEventPage(
  store: Pick<EventStore, 'readStoredPage'>,
  sessionId: string,
  fromSeq: number,
  limit: number,
): Promise<EventPage> {
  return decodeStoredPage(sessionId, await store.readStoredPage(sessionId, fromSeq, limit));
}
