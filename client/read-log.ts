import type { SessionEvent } from '../shared/events.ts';
import { HubClientError } from './errors.ts';
import type { HubClient } from './hub-client.ts';

/**
 * The whole log of a session as the hub holds it now: from this client's own subscription to it (from seq 0,
 * once live), else through a short-lived subscription. A subscription from a later seq cannot tell: that is
 * ALREADY_SUBSCRIBED (pass the log yourself).
 */
export async function readSessionLog(client: HubClient, sessionId: string): Promise<readonly SessionEvent[]> {
  const existing = client.subscriptionOf(sessionId);
  if (existing !== undefined) {
    if (existing.fromSeq !== 0) {
      const message = `this client follows ${sessionId} from seq ${existing.fromSeq}: pass the log as options.events`;
      throw new HubClientError('ALREADY_SUBSCRIBED', message, { sessionId });
    }
    await existing.whenLive();
    return [...existing.events];
  }
  const subscription = client.subscribe(sessionId);
  try {
    await subscription.whenLive();
    return subscription.events;
  } finally {
    subscription.close();
  }
}
