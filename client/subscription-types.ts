import type { DerivedMessage, SessionEvent } from '../shared/events.ts';
import { HubErrorCode } from '../shared/protocol.ts';
import type { ProjectionChange } from '../shared/index.ts';
import type { HubClientError } from './errors.ts';
import type { PresenceChange } from './presence.ts';

/** `pending`: waiting for a connection; `subscribing`: request sent; `catching-up`: replaying stored events;
 * `live`: caught up, receiving new events as they commit; `closed`: for good. */
export type SubscriptionState = 'pending' | 'subscribing' | 'catching-up' | 'live' | 'closed';

export type SubscriptionEvents = {
  /** The next event of the log (each seq exactly once, in order; after a `reset`, again from seq 0). */
  event: [event: SessionEvent];
  /** The derived messages changed: what changed, and the whole current list. */
  messages: [change: ProjectionChange, messages: readonly DerivedMessage[]];
  /** Caught up with the hub (after the first subscribe and after every resume). */
  live: [headSeq: number];
  /** The session's stored data was replaced (epoch changed): local state was cleared; events follow from seq 0. */
  reset: [epoch: string];
  /** Who watches the session changed (only with `subscribe(id, { presence: true })`). */
  presence: [change: PresenceChange];
  /**
   * A subscription error; `closed` follows when it is final (e.g. FORBIDDEN, NOT_FOUND, SEQ_OUT_OF_RANGE, GONE: the
   * seqs asked for were trimmed, `details.firstSeq` is the first one kept).
   */
  error: [error: HubClientError];
  closed: [];
};

/** Error codes after which re-subscribing cannot help. */
export const FINAL_SUBSCRIPTION_CODES: ReadonlySet<HubErrorCode> = new Set([
  HubErrorCode.NOT_FOUND,
  HubErrorCode.FORBIDDEN,
  HubErrorCode.UNAUTHORIZED,
  HubErrorCode.TOKEN_EXPIRED,
  HubErrorCode.SEQ_OUT_OF_RANGE,
  HubErrorCode.GONE,
  HubErrorCode.BAD_REQUEST,
  HubErrorCode.TOO_MANY_SUBSCRIPTIONS,
  HubErrorCode.DATA_CORRUPTED,
]);
