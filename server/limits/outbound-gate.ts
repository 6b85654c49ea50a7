import { DrainWatch, OutboundFlow } from './outbound-flow.ts';

/** The parts of a `ws` WebSocket the gate uses. */
export interface GatedSocket {
  readonly bufferedAmount: number;
  pause(): void;
  resume(): void;
}

export interface OutboundGateLimits {
  readonly maxBufferedBytes: number;
  readonly stallTimeoutMs: number;
  /** How often the buffered byte count is checked while the connection is behind. Default 20 ms. */
  readonly pollMs?: number;
}

/** What the gate tells its owner (one object per connection, usually the connection's guard: no closures). */
export interface OutboundGateEvents {
  /** The connection stopped reading for `stallTimeoutMs`: close it with SLOW_CONSUMER. Called once. */
  onStall(): void;
  /** A new highest buffered byte count for this connection (for metrics). */
  onPeak?(bufferedBytes: number): void;
  /** Every time the connection falls behind (for metrics and logs). */
  onBehind?(bufferedBytes: number): void;
}

/**
 * Bounds one connection's outbound queue (slow-consumer handling). After every send the hub calls `noteSent()`;
 * when the socket's buffered bytes pass `maxBufferedBytes` the connection is *behind*:
 * - subscriptions stop pushing live events (they check `behind`) and wait in `whenDrained()` to catch up from the
 *   store at the client's pace;
 * - the socket stops reading requests (`pause()`), so a client that does not read its replies cannot make the hub
 *   queue more of them (TCP backpressure on the client instead of memory on the hub).
 * The gate polls the buffer while behind; once it is back under the bound it resumes reading and releases the
 * waiters. A buffer that does not shrink at all for `stallTimeoutMs` calls `onStall` once; so does, below the
 * bound, a connection with data waiting that drains none of it for `stallTimeoutMs` (`DrainWatch`, checked every
 * quarter of that while data waits).
 */
export class OutboundGate {
  readonly #socket: GatedSocket;
  /** Usually the node's limits object, shared by every connection. */
  readonly #limits: OutboundGateLimits;
  readonly #events: OutboundGateEvents;
  readonly #now: () => number;
  /** The flow state while behind (made the first time the connection falls behind). */
  #flow: OutboundFlow | undefined;
  #behind = false;
  #closed = false;
  #timer: NodeJS.Timeout | undefined;
  #waiters: (() => void)[] | undefined;
  #peakBufferedBytes = 0;
  /** While data waits (made by the send that found the buffer non-empty; dropped once it is empty). */
  #drain: { readonly watch: DrainWatch; readonly timer: NodeJS.Timeout } | undefined;

  constructor(
    socket: GatedSocket,
    limits: OutboundGateLimits,
    events: OutboundGateEvents,
    now: () => number = Date.now,
  ) {
    this.#socket = socket;
    this.#limits = limits;
    this.#events = events;
    this.#now = now;
  }

  /** Is the connection over its outbound bound (re-checked now)? */
  get behind(): boolean {
    if (this.#behind) return true;
    this.noteSent();
    return this.#behind;
  }

  /** The connection is closing (`close()`), or was found stalled: nothing more will drain. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Highest buffered byte count seen after a send. */
  get peakBufferedBytes(): number {
    return this.#peakBufferedBytes;
  }

  /**
   * Call after every send of `bytes` (the frame's payload): tracks the peak, watches that waiting data drains, and
   * switches to *behind* when over the bound.
   */
  noteSent(bytes = 0): void {
    if (this.#closed) return;
    const buffered = this.#socket.bufferedAmount;
    if (this.#drain !== undefined) this.#drain.watch.sent(bytes);
    else if (buffered > 0) this.#watchDrain(buffered);
    if (buffered > this.#peakBufferedBytes) {
      this.#peakBufferedBytes = buffered;
      this.#events.onPeak?.(buffered);
    }
    if (this.#behind || buffered <= this.#limits.maxBufferedBytes) return;
    this.#behind = true;
    (this.#flow ??= new OutboundFlow(this.#limits)).observe(buffered, this.#now());
    this.#socket.pause();
    this.#events.onBehind?.(buffered);
    this.#timer = setInterval(() => this.#poll(), this.#limits.pollMs ?? 20);
    this.#timer.unref();
  }

  /** Resolves once the connection is under its bound again (at once when it is), or when the gate closes. */
  whenDrained(): Promise<void> {
    if (!this.behind || this.#closed) return Promise.resolve();
    return new Promise((resolve) => (this.#waiters ??= []).push(resolve));
  }

  /** Stop polling and release every waiter (the connection is closing). */
  close(): void {
    this.#closed = true;
    this.#stopPolling();
    this.#stopDrainWatch();
    this.#release();
  }

  #poll(): void {
    const state = (this.#flow ??= new OutboundFlow(this.#limits)).observe(this.#socket.bufferedAmount, this.#now());
    if (state === 'behind') return;
    this.#stopPolling();
    if (state === 'stalled') {
      this.#stall();
      return;
    }
    this.#behind = false;
    this.#socket.resume();
    this.#release();
  }

  #watchDrain(buffered: number): void {
    const { stallTimeoutMs } = this.#limits;
    const checkMs = Math.max(this.#limits.pollMs ?? 20, Math.ceil(stallTimeoutMs / 4));
    const timer = setTimeout(() => this.#checkDrain(), checkMs);
    timer.unref();
    this.#drain = { watch: new DrainWatch(buffered, this.#now(), stallTimeoutMs), timer };
  }

  #checkDrain(): void {
    const drain = this.#drain;
    if (drain === undefined || this.#closed) return;
    const state = drain.watch.observe(this.#socket.bufferedAmount, this.#now());
    if (state === 'draining') drain.timer.refresh();
    else if (state === 'idle') this.#drain = undefined;
    else this.#stall();
  }

  #stopDrainWatch(): void {
    clearTimeout(this.#drain?.timer);
    this.#drain = undefined;
  }

  /** Nothing drained for `stallTimeoutMs`: closed, and the owner told (once). */
  #stall(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopPolling();
    this.#stopDrainWatch();
    this.#socket.resume(); // read again so the close handshake can complete
    this.#events.onStall();
    this.#release();
  }

  #stopPolling(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #release(): void {
    const waiters = this.#waiters;
    if (waiters === undefined) return;
    this.#waiters = undefined;
    for (const resolve of waiters) resolve();
  }
}
