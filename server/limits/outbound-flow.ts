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
