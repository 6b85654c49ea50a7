import { PROTOCOL_BOUNDS } from '../../shared/protocol.ts';

/**
 * The security limits: part of the hub's limits (`HubLimits` below adds the frame, batch, event, subscription,
 * connection and hello limits). Every breach is answered with a typed error
 * (or, where the connection must end, a close code); nothing is half-written and other clients are not affected.
 * Sizes in bytes, times in ms.
 */
export interface SecurityLimits {
  /** Deepest nesting of arrays/objects in an event. Breach: EVENT_TOO_LARGE (`details.maxDepth`). */
  readonly maxEventDepth: number;
  /** Sustained appends per second per connection (token bucket refill). Breach: RATE_LIMITED, `details.retryAfterMs`. */
  readonly appendsPerSecond: number;
  /** Appends a connection may make at once above the sustained rate (bucket size). */
  readonly appendBurst: number;
  /** A connection refused for its rate at least once a second for this long is closed 4029 (RATE_LIMITED). */
  readonly rateLimitCloseAfterMs: number;
  /**
   * Outbound bytes a connection may have queued (ws `bufferedAmount`). Above it the hub stops pushing live events to
   * that connection; its subscriptions catch up from the store once it drains (the log is the buffer).
   */
  readonly maxBufferedBytes: number;
  /** A connection above `maxBufferedBytes` that drains nothing for this long is closed 4008 (SLOW_CONSUMER). */
  readonly stallTimeoutMs: number;
  /**
   * WebSocket connections that have not completed `hello` (node-wide; they do not count against `maxConnections`).
   * When full, the oldest of them is dropped to make room for a new one, so a flood of idle upgrades cannot lock
   * legitimate clients (which send `hello` at once) out.
   */
  readonly maxPendingConnections: number;
  /** Connections without a completed `hello` from one remote address; more upgrades from it get HTTP 429. */
  readonly maxPendingPerAddress: number;
  /** Subscriptions on the whole node (all connections). Breach: TOO_MANY_SUBSCRIPTIONS (`details.scope: 'node'`). */
  readonly maxSubscriptionsPerNode: number;
  /**
   * After a connection's token expired (its subscriptions end with TOKEN_EXPIRED), the time it has to send `auth` with
   * a fresh token before it is closed with 1008 (POLICY_VIOLATION).
   */
  readonly tokenRefreshGraceMs: number;
  /**
   * Optional: the longest a connection may go on one token, from the `hello`/`auth` that presented it, whatever the
   * token's own expiry (also for tokens without `exp`). Unset: the token's expiry alone.
   */
  readonly maxTokenLifetimeMs?: number;
  /** HTTP: time a client has to send a request's headers (slowloris); then 408 and the socket closes. */
  readonly headersTimeoutMs: number;
  /** HTTP: time a client has to send a whole request, body included; then 408 and the socket closes. */
  readonly requestTimeoutMs: number;
  /** HTTP: an idle keep-alive socket is closed after this long. */
  readonly keepAliveTimeoutMs: number;
}

const MiB = 1024 * 1024;

/** The defaults (see docs/security.md for the reasoning). */
export const DEFAULT_SECURITY_LIMITS: SecurityLimits = Object.freeze({
  maxEventDepth: 64,
  appendsPerSecond: 1000,
  appendBurst: 2000,
  rateLimitCloseAfterMs: 10_000,
  maxBufferedBytes: 1 * MiB,
  stallTimeoutMs: 30_000,
  maxPendingConnections: 1000,
  maxPendingPerAddress: 32,
  maxSubscriptionsPerNode: 100_000,
  tokenRefreshGraceMs: 10_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5000,
});

/** A limit value that makes no sense (not a positive integer). */
export class LimitsConfigError extends Error {
  override readonly name = 'LimitsConfigError';
}

/**
 * Check that every given limit is a positive safe integer (throws `LimitsConfigError` naming the first bad one), and
 * that `maxEventsPerAppend` stays within what the protocol parser takes (`PROTOCOL_BOUNDS.eventsPerAppend`).
 */
export function checkLimits(limits: Readonly<Record<string, number>>): void {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new LimitsConfigError(`limit ${name} must be a positive integer, got ${String(value)}`);
    }
  }
  const events = limits['maxEventsPerAppend'];
  if (events !== undefined && events > PROTOCOL_BOUNDS.eventsPerAppend) {
    throw new LimitsConfigError(
      `limit maxEventsPerAppend must be at most ${PROTOCOL_BOUNDS.eventsPerAppend} (the protocol's bound), got ${events}`,
    );
  }
}

/** Defaults overlaid with `overrides` (undefined fields keep the default), checked. */
export function resolveSecurityLimits(overrides: Partial<SecurityLimits> = {}): SecurityLimits {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  const limits: SecurityLimits = { ...DEFAULT_SECURITY_LIMITS, ...defined };
  checkLimits({ ...limits });
  return Object.freeze(limits);
}

/**
 * Resource limits. Each breach gets a typed error (or a close code where the connection must end). The rate,
 * nesting and slow-consumer limits come from `SecurityLimits` (above).
 */
export interface HubLimits extends SecurityLimits {
  /** Largest WebSocket frame / HTTP body in bytes; a bigger frame closes the socket with 1009. Default 1 MiB. */
  readonly maxFrameBytes: number;
  /** Most events in one append (BATCH_TOO_LARGE). Default 1,000. */
  readonly maxEventsPerAppend: number;
  /** Largest event (its JSON encoding) in bytes (EVENT_TOO_LARGE). Default 256 KiB. */
  readonly maxEventBytes: number;
  /** Most subscriptions on one connection (TOO_MANY_SUBSCRIPTIONS). Default 1,000. */
  readonly maxSubscriptionsPerConnection: number;
  /** Most open WebSocket connections per hub node; more are closed with 1013. Default 10,000. */
  readonly maxConnections: number;
  /** Time a new connection has to send `hello` before it is closed with 1002. Default 5 s. */
  readonly helloTimeoutMs: number;
  /** Events per store read during catch-up (and the HTTP page size cap). Default 1,000. */
  readonly catchUpPageSize: number;
  /** Live events a subscriber buffers while it catches up; older ones are re-read from the store. Default 10,000. */
  readonly maxBufferedLiveEvents: number;
  /**
   * Sustained appends per second of one principal on this node, WebSocket and HTTP together, over all its
   * connections: the token's subject, or the client's address on an open hub. Breach: RATE_LIMITED with
   * `details.retryAfterMs`. Default 5,000.
   */
  readonly principalAppendsPerSecond: number;
  /** Appends one principal may make at once above its sustained rate. Default 10,000. */
  readonly principalAppendBurst: number;
  /**
   * HTTP event pages (`GET /v1/sessions/:id/events`) read and written at once on this node; more get 429
   * RATE_LIMITED with `details.retryAfterMs`. Each holds at most about `maxFrameBytes` of events. Default 32.
   */
  readonly maxConcurrentPageReads: number;
}

export const defaultLimits: HubLimits = {
  ...DEFAULT_SECURITY_LIMITS,
  maxFrameBytes: 1024 * 1024,
  maxEventsPerAppend: 1000,
  maxEventBytes: 256 * 1024,
  maxSubscriptionsPerConnection: 1000,
  maxConnections: 10_000,
  helloTimeoutMs: 5000,
  catchUpPageSize: 1000,
  maxBufferedLiveEvents: 10_000,
  principalAppendsPerSecond: 5000,
  principalAppendBurst: 10_000,
  maxConcurrentPageReads: 32,
};

/** `defaultLimits` overlaid with the given ones (undefined fields keep the default); throws on nonsense values. */
export function resolveLimits(overrides: Partial<HubLimits> = {}): HubLimits {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  const limits: HubLimits = { ...defaultLimits, ...defined };
  checkLimits({ ...limits });
  return limits;
}
