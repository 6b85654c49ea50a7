import { HubErrorCode } from '../../shared/protocol.ts';
import type { HubPrincipal } from '../auth/auth-seam.ts';
import { HubError } from '../hub-error.ts';
import { TokenBucket, type Clock } from './rate-limiter.ts';

export interface PrincipalRateOptions {
  /** Sustained appends per second of one principal (token bucket refill). */
  readonly ratePerSecond: number;
  /** Appends one principal may make at once (bucket size). */
  readonly burst: number;
  /** An open hub: every client is `anonymous`, so the client's address stands for the principal. */
  readonly byAddress: boolean;
  /** Most principals tracked at once; beyond, the longest-tracked ones are forgotten (a fresh bucket). */
  readonly maxPrincipals?: number;
  readonly now?: Clock;
}

/**
 * The append rate of each principal on this node, shared by all its WebSocket connections and its HTTP requests
 * (one token over ten sockets gets the rate of one token, not ten). A principal is the token's subject, or on an
 * open hub the client's address. A full bucket (an idle principal) is forgotten when room is needed, so memory
 * stays bounded by `maxPrincipals` however many subjects or addresses come by.
 */
export class PrincipalRateLimits {
  readonly #options: PrincipalRateOptions;
  readonly #maxPrincipals: number;
  readonly #buckets = new Map<string, TokenBucket>();

  constructor(options: PrincipalRateOptions) {
    this.#options = options;
    this.#maxPrincipals = options.maxPrincipals ?? 100_000;
  }

  /** Principals tracked now. */
  get size(): number {
    return this.#buckets.size;
  }

  /** Account for one append of `principal` (from `remoteAddress`); throws RATE_LIMITED when it is over its rate. */
  checkAppend(principal: HubPrincipal | undefined, remoteAddress: string | undefined): void {
    const key =
      this.#options.byAddress || principal === undefined
        ? `address:${remoteAddress ?? '?'}`
        : `subject:${principal.subject}`;
    const bucket = this.#bucket(key);
    if (bucket.tryTake(1)) return;
    const limit = this.#options.ratePerSecond;
    const who = this.#options.byAddress ? 'this address' : 'this token subject';
    throw new HubError(HubErrorCode.RATE_LIMITED, `more than ${limit} appends per second from ${who} on this node`, {
      retryAfterMs: bucket.msUntil(1),
      limit,
      scope: 'principal',
    });
  }

  #bucket(key: string): TokenBucket {
    const known = this.#buckets.get(key);
    if (known !== undefined) return known;
    if (this.#buckets.size >= this.#maxPrincipals) this.#makeRoom();
    const { ratePerSecond, burst, now } = this.#options;
    const bucket = new TokenBucket({ ratePerSecond, burst, ...(now === undefined ? {} : { now }) });
    this.#buckets.set(key, bucket);
    return bucket;
  }

  /** Forget the idle principals (full buckets); if none is idle, the longest-tracked tenth. */
  #makeRoom(): void {
    const { burst } = this.#options;
    for (const [key, bucket] of this.#buckets) if (bucket.available >= burst) this.#buckets.delete(key);
    if (this.#buckets.size < this.#maxPrincipals) return;
    let drop = Math.max(1, Math.floor(this.#maxPrincipals / 10));
    for (const key of this.#buckets.keys()) {
      if (drop-- <= 0) break;
      this.#buckets.delete(key);
    }
  }
}
