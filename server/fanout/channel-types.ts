import type { SessionEvent } from '../../shared/index.ts';
import type { LiveBatch } from './live-batch.ts';
import type { Logger } from '../logger.ts';
import type { HubMetrics } from '../metrics.ts';
import type { EventStore } from '../store/event-store.ts';
import type { StoreReadLimits } from '../limits/store-reads.ts';
import type { SessionMetadata } from '../store/metadata-store.ts';

/** A local consumer of a session's live stream (a subscription). */
export interface ChannelListener {
  /** The next contiguous batch: `batch.firstSeq` is the previous batch's `lastSeq + 1`. */
  onBatch(batch: LiveBatch): void;
  /** The session's epoch changed (its data was lost): positions are void, restart from seq 0. */
  onReset(epoch: string, reason: string): void;
  /**
   * The session had no epoch (`NO_EPOCH`: nothing written yet) and its first commit gave it `epoch`. Nothing was
   * delivered before, so no position is void: the batches that follow continue from seq 0.
   */
  onEpoch(epoch: string): void;
  /**
   * The session was expired by retention (its data deleted at `expiredAt`, epoch ms): the subscription ends with
   * SESSION_EXPIRED instead of a reset to an empty log. A listener without it gets `onReset`.
   */
  onExpired?(expiredAt: number): void;
}

export interface ChannelDeps {
  readonly store: EventStore;
  readonly logger: Logger;
  readonly metrics: HubMetrics;
  /** How many events a store read asks for (bounded by bytes: see `StoreReadSizer`). */
  readonly reads: StoreReadLimits;
  /**
   * Every batch the channel emits from the store (other nodes' commits, gap fills): keeps the append cache warm.
   * This node's own commits reach the cache from the append pipeline, never through here (`deliverOwn`).
   */
  readonly onCommitted: (sessionId: string, epoch: string, events: readonly SessionEvent[]) => void;
  readonly onReset: (sessionId: string, epoch: string) => void;
  /** The session's metadata changed (any node's change, from the store watch). */
  readonly onMetadata?: (sessionId: string, metadata: SessionMetadata) => void;
}
