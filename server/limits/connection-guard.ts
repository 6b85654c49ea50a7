import { CloseCode, HubErrorCode } from '../../shared/protocol.ts';
import type { HubPrincipal } from '../config.ts';
import { HubError } from '../hub-error.ts';
import { AuthFailureReason } from '../auth/auth-error.ts';
import type { SecurityLimits } from './limits.ts';
import { OutboundGate, type GatedSocket } from './outbound-gate.ts';
import { RateLimiter, type Clock } from './rate-limiter.ts';

/** Longest delay `setTimeout` takes; later expiries are re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** After a SLOW_CONSUMER close frame was queued, how long the client has to read up to it before the socket is cut. */
const STALL_CLOSE_GRACE_MS = 5000;

export interface ConnectionGuardOptions {
  readonly limits: Pick<
    SecurityLimits,
    | 'appendsPerSecond'
    | 'appendBurst'
    | 'rateLimitCloseAfterMs'
    | 'maxBufferedBytes'
    | 'stallTimeoutMs'
    | 'tokenRefreshGraceMs'
    | 'maxTokenLifetimeMs'
  >;
  /**
   * The connection's token expired (no refresh arrived in time): end its subscriptions with TOKEN_EXPIRED. Unless a
   * new principal is set within `tokenRefreshGraceMs`, the connection is then closed with 1008.
   */
  readonly onExpired: () => void;
  /** Close the connection (with a close frame). */
  readonly close: (code: number, reason: string) => void;
  /** Cut the connection without a handshake. */
  readonly terminate: () => void;
  /** A limit closed the connection (for metrics and logs). */
  readonly onLimitClose?: (code: number) => void;
  /** A new highest outbound buffered byte count on this connection (for metrics). */
  readonly onBufferedPeak?: (bytes: number) => void;
  readonly now?: Clock;
}

/**
 * Per-connection security state: the append rate limit, the expiry timer of the connection's current token
 * (re-armed on every successful `hello`/`auth`), and the outbound gate (slow consumers; see `OutboundGate`).
 */
export class ConnectionGuard {
  /** The outbound bound: subscriptions read `gate.behind` / `gate.whenDrained()`, sends call `gate.noteSent()`. */
  readonly gate: OutboundGate;
  readonly #options: ConnectionGuardOptions;
  readonly #now: Clock;
  readonly #appendRate: RateLimiter;
  #expiryTimer: NodeJS.Timeout | undefined;
  #graceTimer: NodeJS.Timeout | undefined;
  #refreshTimer: NodeJS.Timeout | undefined;

  constructor(socket: GatedSocket, options: ConnectionGuardOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    const { limits } = options;
    this.#appendRate = new RateLimiter({
      ratePerSecond: limits.appendsPerSecond,
      burst: limits.appendBurst,
      closeAfterMs: limits.rateLimitCloseAfterMs,
      now: this.#now,
    });
    this.gate = new OutboundGate(socket, {
      maxBufferedBytes: limits.maxBufferedBytes,
      stallTimeoutMs: limits.stallTimeoutMs,
      now: this.#now,
      ...(options.onBufferedPeak === undefined ? {} : { onPeak: options.onBufferedPeak }),
      onStall: () => this.#closeForLimit(CloseCode.SLOW_CONSUMER, 'slow consumer: the client stopped reading'),
    });
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
    const decision = this.#appendRate.check();
    if (decision.allowed) return;
    if (decision.close) this.#closeForLimit(CloseCode.RATE_LIMITED, 'rate limited for too long');
    const limit = this.#options.limits.appendsPerSecond;
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
    this.#options.onLimitClose?.(code);
    this.#options.close(code, reason);
    if (code === CloseCode.SLOW_CONSUMER && this.#graceTimer === undefined) {
      // The close frame waits behind the unread data; a client that never reads again is cut after the grace.
      this.#graceTimer = setTimeout(() => this.#options.terminate(), STALL_CLOSE_GRACE_MS);
      this.#graceTimer.unref();
    }
  }

  #capLifetime(principal: HubPrincipal): HubPrincipal {
    const lifetime = this.#options.limits.maxTokenLifetimeMs;
    if (lifetime === undefined) return principal;
    const cap = this.#now() + lifetime;
    if (principal.expiresAt !== undefined && principal.expiresAt <= cap) return principal;
    return { ...principal, expiresAt: cap };
  }

  /** The token expired: end the subscriptions now, close the connection unless it refreshes within the grace. */
  #expired(): void {
    this.#options.onExpired();
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = undefined;
      this.#closeForLimit(CloseCode.POLICY_VIOLATION, 'the token expired and was not refreshed');
    }, this.#options.limits.tokenRefreshGraceMs);
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
