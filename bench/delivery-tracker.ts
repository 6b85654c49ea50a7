import { performance } from 'node:perf_hooks';
import { LatencyRecorder } from './stats.ts';

/**
 * Counts deliveries of a fan-out run: every event `i` the writer sent must reach `subscribers` receivers.
 * Tracks how many events are not yet fully delivered (the backlog the writer's flow control and the open-loop
 * safety bound look at), and records append→receive latency (from the intended send time) while `recording`.
 */
export class DeliveryTracker {
  readonly subscribers: number;
  readonly latency = new LatencyRecorder();
  /** Append→ack (from the intended send time), recorded while `recording`. */
  readonly ackLatency = new LatencyRecorder();
  /** Ring of outstanding receiver counts, indexed by event index modulo its size. */
  readonly #remaining: Int32Array;
  #sent = 0;
  #fullyDelivered = 0;
  #deliveries = 0;
  #recording = false;
  #waiter: { readonly below: number; readonly resolve: () => void } | undefined;

  constructor(subscribers: number, capacity = 1 << 17) {
    this.subscribers = subscribers;
    this.#remaining = new Int32Array(capacity);
  }

  /** The largest backlog the ring can track; stop offering load well before it. */
  get capacity(): number {
    return this.#remaining.length;
  }

  get sent(): number {
    return this.#sent;
  }

  /** Events sent but not yet received by every subscriber. */
  get backlog(): number {
    return this.#sent - this.#fullyDelivered;
  }

  /** Deliveries (event × receiver) counted so far. */
  get deliveries(): number {
    return this.#deliveries;
  }

  /** Record latencies from now on (after warm-up). */
  startRecording(): void {
    this.#recording = true;
  }

  stopRecording(): void {
    this.#recording = false;
  }

  /** The writer is about to send event `index` (indexes are consecutive from 0). */
  onSent(index: number): void {
    if (this.backlog >= this.capacity) throw new Error('delivery backlog exceeds the tracker capacity');
    this.#remaining[index % this.capacity] = this.subscribers;
    this.#sent++;
  }

  /** The server acked the append of an event sent (intended) at `sentAtMs`. */
  onAcked(sentAtMs: number): void {
    if (this.#recording) this.ackLatency.recordMs(performance.now() - sentAtMs);
  }

  /** A subscriber received event `index`, sent (intended) at `sentAtMs`. */
  onDelivered(index: number, sentAtMs: number): void {
    this.#deliveries++;
    if (this.#recording) this.latency.recordMs(performance.now() - sentAtMs);
    const slot = index % this.capacity;
    if (--this.#remaining[slot]! === 0) {
      this.#fullyDelivered++;
      const waiter = this.#waiter;
      if (waiter !== undefined && this.backlog < waiter.below) {
        this.#waiter = undefined;
        waiter.resolve();
      }
    }
  }

  /** Resolves once the backlog is below `below` (flow control of the saturation run). */
  waitForBacklogBelow(below: number): Promise<void> {
    if (this.backlog < below) return Promise.resolve();
    return new Promise((resolve) => {
      this.#waiter = { below, resolve };
    });
  }
}
