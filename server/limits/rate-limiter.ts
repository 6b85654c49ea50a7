/** A clock in milliseconds (injectable for tests). */
export type Clock = () => number;

export interface TokenBucketOptions {
  /** Tokens added per second (sustained rate). */
  readonly ratePerSecond: number;
  /** Bucket size: the most tokens that can be taken at once after an idle period. Starts full. */
  readonly burst: number;
  readonly now?: Clock;
}

/** A token bucket: pure arithmetic over an injectable clock, no timers. */
export class TokenBucket {
  readonly #ratePerMs: number;
  readonly #burst: number;
  readonly #now: Clock;
  #tokens: number;
  #updatedAt: number;

  constructor(options: TokenBucketOptions) {
    if (!(options.ratePerSecond > 0) || !(options.burst >= 1)) {
      throw new RangeError('a token bucket needs ratePerSecond > 0 and burst >= 1');
    }
    this.#ratePerMs = options.ratePerSecond / 1000;
    this.#burst = options.burst;
    this.#now = options.now ?? Date.now;
    this.#tokens = options.burst;
    this.#updatedAt = this.#now();
  }

  /** Tokens available now (fractional). */
  get available(): number {
    this.#refill();
    return this.#tokens;
  }

  /** Take `count` tokens if they are all there; otherwise take none. */
  tryTake(count = 1): boolean {
    this.#refill();
    if (this.#tokens < count) return false;
    this.#tokens -= count;
    return true;
  }

  /** Milliseconds until `count` tokens will be available (0 when they are now; Infinity when count > burst). */
  msUntil(count = 1): number {
    if (count > this.#burst) return Number.POSITIVE_INFINITY;
    this.#refill();
    const missing = count - this.#tokens;
    return missing <= 0 ? 0 : Math.ceil(missing / this.#ratePerMs);
  }

  #refill(): void {
    const now = this.#now();
    const elapsed = Math.max(0, now - this.#updatedAt);
    this.#updatedAt = Math.max(this.#updatedAt, now);
    this.#tokens = Math.min(this.#burst, this.#tokens + elapsed * this.#ratePerMs);
  }
}

export type RateDecision =
  | { readonly allowed: true }
  /** Refuse this request with RATE_LIMITED; `close` means end the connection (CloseCode.RATE_LIMITED). */
  | { readonly allowed: false; readonly retryAfterMs: number; readonly close: boolean };

export interface RateLimiterOptions {
  readonly ratePerSecond: number;
  readonly burst: number;
  /** Refused at least once every `refusalGapMs` for this long → `close: true`. */
  readonly closeAfterMs: number;
  /** A pause in refusals longer than this ends a "limited" stretch. Default 1000 ms. */
  readonly refusalGapMs?: number;
  readonly now?: Clock;
}

/**
 * Per-connection request rate limit: a token bucket plus "limited for too long" detection. A client that keeps
 * sending faster than its rate (refused at least once a second, for `closeAfterMs`) is disconnected instead of
 * costing the hub an error reply forever; one that backs off (no refusal for `refusalGapMs`) starts afresh.
 */
export class RateLimiter {
  readonly #bucket: TokenBucket;
  readonly #closeAfterMs: number;
  readonly #refusalGapMs: number;
  readonly #now: Clock;
  #limitedSince: number | undefined;
  #lastRefusalAt = Number.NEGATIVE_INFINITY;

  constructor(options: RateLimiterOptions) {
    this.#now = options.now ?? Date.now;
    this.#bucket = new TokenBucket({ ratePerSecond: options.ratePerSecond, burst: options.burst, now: this.#now });
    this.#closeAfterMs = options.closeAfterMs;
    this.#refusalGapMs = options.refusalGapMs ?? 1000;
  }

  /** Account for one request. */
  check(): RateDecision {
    if (this.#bucket.tryTake(1)) return { allowed: true };
    const now = this.#now();
    if (this.#limitedSince === undefined || now - this.#lastRefusalAt > this.#refusalGapMs) this.#limitedSince = now;
    this.#lastRefusalAt = now;
    return {
      allowed: false,
      retryAfterMs: this.#bucket.msUntil(1),
      close: now - this.#limitedSince >= this.#closeAfterMs,
    };
  }
}
