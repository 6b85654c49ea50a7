/**
 * Per-hub limits. Every breach is answered with a typed error (or, where the connection must end, a close code);
 * nothing is half-written and other clients are not affected. All sizes in bytes, times in ms.
 */
export interface HubLimits {
  /** Largest inbound WebSocket frame / HTTP body. Breach: socket closed 1009 (MESSAGE_TOO_BIG); HTTP 413 FRAME_TOO_LARGE. */
  readonly maxFrameBytes: number;
  /** Most events in one append. Breach: BATCH_TOO_LARGE. */
  readonly maxEventsPerAppend: number;
  /** Largest event (its JSON encoding). Breach: EVENT_TOO_LARGE, `details.index`. */
  readonly maxEventBytes: number;
  /** Deepest nesting of arrays/objects in an event. Breach: EVENT_TOO_LARGE. */
  readonly maxEventDepth: number;
  /** Longest session id (UTF-16 code units). Breach: BAD_REQUEST. */
  readonly maxSessionIdLength: number;
  /** Most subscriptions on one connection. Breach: TOO_MANY_SUBSCRIPTIONS. */
  readonly maxSubscriptionsPerConnection: number;
  /** Most open sockets per hub node. Breach: socket closed 1013 (TRY_AGAIN_LATER) with TOO_MANY_CONNECTIONS. */
  readonly maxConnections: number;
  /** Sustained appends per second per connection (token bucket refill). Breach: RATE_LIMITED, `details.retryAfterMs`. */
  readonly appendsPerSecond: number;
  /** Appends a connection may make in a burst above the sustained rate (bucket size). */
  readonly appendBurst: number;
  /** A connection rate-limited without pause for this long is closed 4029 (RATE_LIMITED). */
  readonly rateLimitCloseAfterMs: number;
  /**
   * Outbound bytes a connection may have queued (ws `bufferedAmount`). Above it the hub stops pushing live events to
   * that connection; its subscriptions catch up from the store once it drains (the log is the buffer).
   */
  readonly maxBufferedBytes: number;
  /** A connection above `maxBufferedBytes` that drains nothing for this long is closed 4008 (SLOW_CONSUMER). */
  readonly stallTimeoutMs: number;
  /** A socket that has not completed `hello` within this time is closed 1002 (PROTOCOL_ERROR). */
  readonly helloTimeoutMs: number;
}

const KiB = 1024;
const MiB = 1024 * KiB;

/** The defaults, chosen for a hub node serving thousands of agents and UIs (see docs/security.md). */
export const DEFAULT_LIMITS: HubLimits = Object.freeze({
  maxFrameBytes: 1 * MiB,
  maxEventsPerAppend: 1000,
  maxEventBytes: 256 * KiB,
  maxEventDepth: 64,
  maxSessionIdLength: 256,
  maxSubscriptionsPerConnection: 1000,
  maxConnections: 10_000,
  appendsPerSecond: 1000,
  appendBurst: 2000,
  rateLimitCloseAfterMs: 10_000,
  maxBufferedBytes: 1 * MiB,
  stallTimeoutMs: 30_000,
  helloTimeoutMs: 10_000,
});

/** A limit value that makes no sense (not a positive integer, or inconsistent with another). */
export class LimitsConfigError extends Error {
  override readonly name = 'LimitsConfigError';
}

/** Defaults overlaid with `overrides`, checked: every limit a positive safe integer, events fit in a frame. */
export function resolveLimits(overrides: Partial<HubLimits> = {}): HubLimits {
  const limits: HubLimits = { ...DEFAULT_LIMITS, ...stripUndefined(overrides) };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new LimitsConfigError(`limit ${name} must be a positive integer, got ${String(value)}`);
    }
  }
  if (limits.maxEventBytes > limits.maxFrameBytes) {
    throw new LimitsConfigError('maxEventBytes must not exceed maxFrameBytes');
  }
  if (limits.appendBurst < 1) throw new LimitsConfigError('appendBurst must be at least 1');
  return Object.freeze(limits);
}

function stripUndefined(overrides: Partial<HubLimits>): Partial<HubLimits> {
  return Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
}
