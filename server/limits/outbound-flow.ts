/**
 * Flow state of one connection's outbound queue (pure: fed the socket's buffered byte count and the time).
 * - `open`: buffered ≤ bound: live events may be pushed.
 * - `behind`: buffered > bound: push nothing more; the connection's subscriptions will catch up from the store
 *   once it drains.
 * - `stalled`: behind, and the buffer has not shrunk at all for `stallTimeoutMs`: close with SLOW_CONSUMER.
 */
export type OutboundState = 'open' | 'behind' | 'stalled';

export interface OutboundFlowOptions {
  readonly maxBufferedBytes: number;
  readonly stallTimeoutMs: number;
}

export class OutboundFlow {
  readonly #maxBufferedBytes: number;
  readonly #stallTimeoutMs: number;
  #lastBuffered = 0;
  #progressAt: number | undefined;

  constructor(options: OutboundFlowOptions) {
    this.#maxBufferedBytes = options.maxBufferedBytes;
    this.#stallTimeoutMs = options.stallTimeoutMs;
  }

  /** Classify the connection given its current buffered bytes at time `now` (ms). */
  observe(bufferedBytes: number, now: number): OutboundState {
    if (bufferedBytes <= this.#maxBufferedBytes) {
      this.#progressAt = undefined;
      this.#lastBuffered = bufferedBytes;
      return 'open';
    }
    if (this.#progressAt === undefined || bufferedBytes < this.#lastBuffered) this.#progressAt = now;
    this.#lastBuffered = bufferedBytes;
    return now - this.#progressAt >= this.#stallTimeoutMs ? 'stalled' : 'behind';
  }
}

/** Whether a connection with data waiting drains any of it: `idle` (nothing waits), `draining`, or `stalled`. */
export type DrainState = 'idle' | 'draining' | 'stalled';

/**
 * Whether a connection with data waiting drains any of it, whatever its queue size (pure: fed the bytes sent, the
 * buffered byte count and the time). Drained bytes are the bytes sent since the watch began (and those buffered
 * then) minus those still buffered, so sends in between never hide that nothing left. A connection that drains
 * nothing for `stallTimeoutMs` while data waits is `stalled`: below the outbound bound too, it would otherwise
 * hold its queue and the kernel's socket buffers for as long as it likes.
 */
export class DrainWatch {
  readonly #stallTimeoutMs: number;
  #queued: number;
  #drained = 0;
  #progressAt: number;

  constructor(bufferedBytes: number, now: number, stallTimeoutMs: number) {
    this.#queued = bufferedBytes;
    this.#progressAt = now;
    this.#stallTimeoutMs = stallTimeoutMs;
  }

  /** `bytes` more were queued. */
  sent(bytes: number): void {
    this.#queued += bytes;
  }

  observe(bufferedBytes: number, now: number): DrainState {
    if (bufferedBytes <= 0) return 'idle';
    const drained = this.#queued - bufferedBytes;
    if (drained > this.#drained) {
      this.#drained = drained;
      this.#progressAt = now;
    }
    return now - this.#progressAt >= this.#stallTimeoutMs ? 'stalled' : 'draining';
  }
}
