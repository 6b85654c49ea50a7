import type { ServerMessage } from '../../shared/protocol.ts';
import type { EventsFrame } from './events-frame.ts';
import type { HubError } from '../hub-error.ts';
import type { Logger } from '../logger.ts';
import type { HubMetrics } from '../metrics.ts';
import type { StoreReadLimits } from '../limits/store-reads.ts';

/** Where a subscription writes (the connection). Frames go out in call order. */
export interface SubscriberSink {
  send(message: ServerMessage): void;
  /** Send an `events` frame: a live batch (its shared, pre-encoded frame) or a catch-up page. */
  sendBatch(batch: EventsFrame): void;
  /** The connection's outbound queue is over its bound (a slow consumer): push no more events for now. */
  readonly behind: boolean;
  /** Resolves once the outbound queue is under its bound again (or the connection is closing). */
  whenDrained(): Promise<void>;
  /** The connection is closing (or cut as a slow consumer): nothing sent reaches the client any more. */
  readonly closing: boolean;
}

export interface SubscriptionDeps {
  readonly sink: SubscriberSink;
  readonly logger: Logger;
  readonly metrics: HubMetrics;
  /** How many events a catch-up read asks for (bounded by bytes: see `StoreReadSizer`). */
  readonly reads: StoreReadLimits;
  /**
   * Bound of one catch-up `events` frame (bytes, about; at least one event each): pages are cut into frames of at
   * most this. The node's `maxFrameBytes`.
   */
  readonly maxFrameBytes: number;
  readonly maxBufferedLiveEvents: number;
  /**
   * The subscription cannot go on (its catch-up read a corrupted stored entry, or seqs trimmed from the log) and has
   * closed itself: the owner drops it and tells the client `error`.
   */
  readonly onFailed?: (error: HubError) => void;
}

export interface SubscribeParams {
  readonly requestId: number;
  readonly sessionId: string;
  readonly fromSeq: number;
  readonly epoch: string | undefined;
}
