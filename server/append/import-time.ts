import { HubErrorCode } from '../../shared/protocol.ts';
import { HubError } from '../hub-error.ts';

/**
 * The check on an import-mode append's commit time (`AppendRequest.time`): not before the time of the session's
 * last event (times never go back along a log) and not in the future of this node's clock. Undefined when fine.
 */
export function importTimeError(
  time: number,
  lastTime: number | undefined,
  now: number = Date.now(),
): HubError | undefined {
  if (lastTime !== undefined && time < lastTime) {
    const message = `import time ${time} is before the time of the session's last event (${lastTime})`;
    return new HubError(HubErrorCode.INVALID_EVENT, message, { time, lastTime });
  }
  if (time > now) {
    return new HubError(HubErrorCode.INVALID_EVENT, `import time ${time} is in the future (now ${now})`, { time, now });
  }
  return undefined;
}
