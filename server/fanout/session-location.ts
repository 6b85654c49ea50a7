/**
 * What a subscriber asks its session's channel when it subscribes, and what the channel answers
 * (`SessionChannel.locate`): the channel is the one owner of where a session is on this node; a subscription
 * consumes its answer and never reads the store's head itself.
 */

/** What a subscriber claims to hold when it subscribes. */
export interface SubscriberClaim {
  /**
   * The epoch of the events it holds; undefined (or `NO_EPOCH`, what a client is told of a session without an
   * epoch) when it holds none.
   */
  readonly epoch: string | undefined;
  /** The next seq it wants. */
  readonly fromSeq: number;
}

/** Where the session is for a subscriber, as of the moment its answer is sent. */
export interface SessionLocation {
  /** The epoch to answer in: the channel's, never one the store no longer holds (when the channel could tell). */
  readonly epoch: string;
  /**
   * The head to answer: the channel's last seq, or the store's head when the claim's `fromSeq` was ahead of the
   * channel and the store is further.
   */
  readonly headSeq: number;
  /**
   * The claimed epoch when it is not `epoch` (the subscriber's events belong to a log that is gone: it is reset and
   * reads from seq 0); undefined when the claim stands.
   */
  readonly voidedEpoch: string | undefined;
}
