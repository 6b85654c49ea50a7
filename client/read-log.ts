import type { SessionEvent } from '../shared/events.ts';
import { ClientErrorCode, HubClientError } from './errors.ts';
import type { HubClient } from './hub-client.ts';
import { withTimeout } from '../shared/timeout.ts';

/** A session's log as read, and the epoch it belongs to (undefined when the hub did not say). */
export interface SessionLogRead {
  readonly events: readonly SessionEvent[];
  readonly epoch: string | undefined;
}

/**
 * The whole log of a session as the hub holds it now: from this client's own subscription to it (from seq 0,
 * once live), else through a short-lived subscription. A subscription from a later seq cannot tell: that is
 * ALREADY_SUBSCRIBED (pass the log yourself). Rejects with TIMEOUT when the log is not caught up within
 * `timeoutMs` (Infinity: wait as long as it takes; the subscription keeps retrying through reconnects).
 */
export async function readSessionLog(client: HubClient, sessionId: string, timeoutMs: number): Promise<SessionLogRead> {
  const timedOut = (): HubClientError =>
    new HubClientError(ClientErrorCode.TIMEOUT, `the log of ${sessionId} was not caught up within ${timeoutMs} ms`, {
      sessionId,
      details: { timeoutMs },
    });
  const existing = client.subscriptionOf(sessionId);
  if (existing !== undefined) {
    if (existing.fromSeq !== 0) {
      const message = `this client follows ${sessionId} from seq ${existing.fromSeq}: pass the log as options.events`;
      throw new HubClientError('ALREADY_SUBSCRIBED', message, { sessionId });
    }
    await withTimeout(existing.whenLive(), timeoutMs, timedOut);
    return { events: [...existing.events], epoch: existing.epoch };
  }
  const subscription = client.subscribe(sessionId);
  try {
    await withTimeout(subscription.whenLive(), timeoutMs, timedOut);
    return { events: subscription.events, epoch: subscription.epoch };
  } finally {
    subscription.close();
  }
}
