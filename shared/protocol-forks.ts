// The fork messages of the protocol (docs/protocol.md#forks); protocol.ts holds the rest and re-exports these.

/**
 * Fork a session (docs/protocol.md#forks): a new session `newId` whose events 0..`atSeq` are this one's (shared, not
 * copied) and whose own events follow. Needs `read` on `sessionId` and `append` on `newId`. `atSeq` must be at a turn
 * boundary (FORK_INSIDE_TURN), unless `repair` closes the open turn in the fork (as `recover()` does).
 */
export interface ForkRequest {
  readonly type: 'fork';
  readonly id: number;
  readonly sessionId: string;
  readonly atSeq: number;
  /** The new session's id (it must not exist); default: a random one under the source's tenant prefix. */
  readonly newId?: string;
  readonly repair?: boolean;
}

/** Reply to `fork`: the new session and its lineage. */
export interface ForkedMessage {
  readonly type: 'forked';
  readonly id: number;
  /** The new session. */
  readonly sessionId: string;
  readonly epoch: string;
  /** Its head: `forkSeq`, or the last event of the repair. */
  readonly headSeq: number;
  readonly parent: string;
  readonly forkSeq: number;
  /** 1 for a fork of a session that is no fork; at most 32. */
  readonly depth: number;
  /** Events the repair appended after `forkSeq` (0 at a turn boundary). */
  readonly repaired: number;
  /** True when `newId` was already this very fork (a retried fork): nothing new was made. */
  readonly duplicate: boolean;
}
