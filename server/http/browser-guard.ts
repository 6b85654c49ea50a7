import type { IncomingHttpHeaders } from 'node:http';
import { HubErrorCode } from '../../shared/protocol.ts';
import { HubError } from '../hub-error.ts';

/** The two browser checks of a hub configuration (see `ResolvedHubConfig.hostAllowed` / `originAllowed`). */
export interface BrowserPolicy {
  readonly hostAllowed: (host: string | undefined) => boolean;
  readonly originAllowed: (origin: string | undefined) => boolean;
}

/** Stable `details.reason` of the 403 a refused request gets. */
export const BrowserRefusalReason = {
  HOST_NOT_ALLOWED: 'host-not-allowed',
  ORIGIN_NOT_ALLOWED: 'origin-not-allowed',
} as const;

/**
 * Why a request (HTTP, or a WebSocket upgrade) must be refused for where it came from, or undefined when it may
 * go on: its `Host` is not one an open hub answers (DNS rebinding), or its `Origin` is a browser page the hub
 * does not take requests from (cross-site requests to an open hub).
 */
export function browserRefusal(headers: IncomingHttpHeaders, policy: BrowserPolicy): HubError | undefined {
  if (!policy.hostAllowed(headers.host)) {
    return new HubError(HubErrorCode.FORBIDDEN, 'this open hub does not answer requests for this Host', {
      reason: BrowserRefusalReason.HOST_NOT_ALLOWED,
    });
  }
  if (!policy.originAllowed(headers.origin)) {
    return new HubError(HubErrorCode.FORBIDDEN, 'requests from this browser origin are not allowed', {
      reason: BrowserRefusalReason.ORIGIN_NOT_ALLOWED,
    });
  }
  return undefined;
}
