import { CloseCode, HubErrorCode } from '../../shared/protocol.ts';
import type { HubPrincipal } from '../auth/auth-seam.ts';
import { HubError } from '../hub-error.ts';
import { AuthFailureReason } from '../auth/auth-error.ts';
import type { SecurityLimits } from './limits.ts';
import { OutboundGate, type GatedSocket, type OutboundGateEvents } from './outbound-gate.ts';
import { RateLimiter, type Clock } from './rate-limiter.ts';

/** Longest delay `setTimeout` takes; later expiries are re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** After a SLOW_CONSUMER close frame was queued, how long the client has to read up to it before the socket is cut. */
const STALL_CLOSE_GRACE_MS = 5000;

/** The limits a guard enforces: usually the node's limits object, shared by every connection. */
export type ConnectionGuardLimits = Pick<
  SecurityLimits,
  | 'appendsPerSecond'
  | 'appendBurst'
  | 'rateLimitCloseAfterMs'
  | 'maxBufferedBytes'
  | 'stallTimeoutMs'
  | 'tokenRefreshGraceMs'
  | 'maxTokenLifetimeMs'
>;

/** The connection a guard watches over (the connection object itself: no closures per connection). */
export interface GuardedConnection {
  /**
   * The connection's token expired (no refresh arrived in time): end its subscriptions with TOKEN_EXPIRED. Unless a
   * new principal is set within `tokenRefreshGraceMs`, the connection is then closed with 1008.
   */
  tokenExpired(): void;
  /** Close the connection (with a close frame). */
  close(code: number, reason: string): void;
  /** Cut the connection without a handshake. */
  terminate(): void;
  /** A limit closed the connection (for metrics and logs). */
  closedByLimit?(code: number): void;
  /** A new highest outbound buffered byte count on this connection (for metrics). */
  bufferedPeak?(bytes: number): void;
}

/**
 * Per-connection security state: the append rate limit (made on the first append: a subscriber never pays for
 * it), the expiry timer of the connection's current token (re-armed on every successful `hello`/`auth`), and the
 * outbound gate (slow consumers; see `OutboundGate`), whose events the guard handles.
 */
export class ConnectionGuard implements OutboundGateEvents {
  /** The outbound bound: subscriptions read `gate.behind` / `gate.whenDrained()`, sends call `gate.noteSent()`. */
  readonly gate: OutboundGate;
  readonly #limits: ConnectionGuardLimits;
  readonly #connection: GuardedConnection;
  readonly #now: Clock;
  #appendRate: RateLimiter | undefined;
  #expiryTimer: NodeJS.Timeout | undefined;
  #graceTimer: NodeJS.Timeout | undefined;
  #refreshTimer: NodeJS.Timeout | undefined;

  constructor(
    socket: GatedSocket,
    limits: ConnectionGuardLimits,
    connection: GuardedConnection,
    now: Clock = Date.now,
  ) {
    this.#limits = limits;
    this.#connection = connection;
    this.#now = now;
    this.gate = new OutboundGate(socket, limits, this, now);
  }

  /** The gate found the connection stalled: close it with SLOW_CONSUMER. */
  onStall(): void {
    this.#closeForLimit(CloseCode.SLOW_CONSUMER, 'slow consumer: the client stopped reading');
  }

  /** A new highest buffered byte count (for metrics). */
  onPeak(bufferedBytes: number): void {
    this.#connection.bufferedPeak?.(bufferedBytes);
  }

  /**
   * A new principal is in force: arm the expiry timer for its `expiresAt` (none when it never expires), capped by
   * `maxTokenLifetimeMs` from now. Returns the principal with that effective `expiresAt` (hold this one: the
   * authorizer refuses it once expired).
   */
  setPrincipal(principal: HubPrincipal): HubPrincipal {
    clearTimeout(this.#expiryTimer);
    clearTimeout(this.#refreshTimer);
    this.#expiryTimer = undefined;
    this.#refreshTimer = undefined;
    const effective = this.#capLifetime(principal);
    if (effective.expiresAt !== undefined) this.#arm(effective.expiresAt);
    return effective;
  }

  /** Account for one append; throws RATE_LIMITED (and closes the connection when it went on for too long). */
  checkAppend(): void {
    const limits = this.#limits;
    this.#appendRate ??= new RateLimiter({
      ratePerSecond: limits.appendsPerSecond,
      burst: limits.appendBurst,
      closeAfterMs: limits.rateLimitCloseAfterMs,
      now: this.#now,
    });
    const decision = this.#appendRate.check();
    if (decision.allowed) return;
    if (decision.close) this.#closeForLimit(CloseCode.RATE_LIMITED, 'rate limited for too long');
    const limit = limits.appendsPerSecond;
    throw new HubError(HubErrorCode.RATE_LIMITED, `more than ${limit} appends per second on this connection`, {
      retryAfterMs: decision.retryAfterMs,
      limit,
    });
  }

  /** The connection closed: stop every timer. */
  dispose(): void {
    clearTimeout(this.#expiryTimer);
    clearTimeout(this.#graceTimer);
    clearTimeout(this.#refreshTimer);
    this.#expiryTimer = undefined;
    this.#refreshTimer = undefined;
    this.gate.close();
  }

  #closeForLimit(code: number, reason: string): void {
    this.#connection.closedByLimit?.(code);
    this.#connection.close(code, reason);
    if (code === CloseCode.SLOW_CONSUMER && this.#graceTimer === undefined) {
      // The close frame waits behind the unread data; a client that never reads again is cut after the grace.
      this.#graceTimer = setTimeout(() => this.#connection.terminate(), STALL_CLOSE_GRACE_MS);
      this.#graceTimer.unref();
    }
  }

  #capLifetime(principal: HubPrincipal): HubPrincipal {
    const lifetime = this.#limits.maxTokenLifetimeMs;
    if (lifetime === undefined) return principal;
    const cap = this.#now() + lifetime;
    if (principal.expiresAt !== undefined && principal.expiresAt <= cap) return principal;
    return { ...principal, expiresAt: cap };
  }

  /** The token expired: end the subscriptions now, close the connection unless it refreshes within the grace. */
  #expired(): void {
    this.#connection.tokenExpired();
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = undefined;
      this.#closeForLimit(CloseCode.POLICY_VIOLATION, 'the token expired and was not refreshed');
    }, this.#limits.tokenRefreshGraceMs);
    this.#refreshTimer.unref();
  }

  #arm(expiresAt: number): void {
    const delay = expiresAt - this.#now();
    this.#expiryTimer = setTimeout(
      () => {
        this.#expiryTimer = undefined;
        if (this.#now() >= expiresAt) this.#expired();
        else this.#arm(expiresAt);
      },
      Math.min(Math.max(0, delay), MAX_TIMER_MS),
    );
    this.#expiryTimer.unref();
  }
}

/** The error that ends a subscription whose token expired. */
export function tokenExpiredError(): HubError {
  return new HubError(
    HubErrorCode.TOKEN_EXPIRED,
    'the token expired; refresh it with an auth message and resubscribe',
    {
      reason: AuthFailureReason.EXPIRED,
    },
  );
}
