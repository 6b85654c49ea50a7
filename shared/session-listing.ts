// The row shape of the hub's session listing (`GET /v1/sessions`): one shape for the hub that answers and the SDK
// and CLI that read it.

/** One session of the hub's listing (`GET /v1/sessions`; docs/protocol.md#listing-sessions). */
export interface SessionListing {
  /** The session id. */
  readonly id: string;
  /** `hot`: the hub's store holds the session; `cold`: only its archive does. */
  readonly tier: 'hot' | 'cold';
  /** Seq of its last event (-1: none). */
  readonly headSeq: number;
  /** Commit time of its first event (epoch ms). */
  readonly createdAt?: number;
  /** The token subject that made the session (its first append, or the fork). */
  readonly createdBy?: string;
  /** Commit time of its last event (epoch ms); absent when the session is empty. */
  readonly lastActivity?: number;
  /** About the size of its log in the store. */
  readonly bytes: number;
  /** Its title, set by writers (`setMetadata`). */
  readonly title?: string;
  /** Its labels, set by writers. */
  readonly labels: Readonly<Record<string, string>>;
  /** For a fork: the session it was forked from. */
  readonly parent?: string;
  /** For a fork: the last seq it shares with its parent. */
  readonly forkSeq?: number;
}
