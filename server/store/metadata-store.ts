import type { MetadataPatch, SessionMetadata } from '../../shared/session-metadata.ts';

export type { MetadataPatch, SessionMetadata } from '../../shared/session-metadata.ts';

/**
 * Fields set once, when a session is made (its first commit, or a fork): each is written only if the session's
 * metadata does not have it yet, so a retried or late call never overwrites what is there.
 */
export interface MetadataInit {
  readonly createdAt?: number;
  readonly createdBy?: string;
  readonly parent?: string;
  readonly forkSeq?: number;
}

/** What the listing shows of one session: its head, when it was last written, its size and metadata. */
export interface SessionSummary {
  readonly sessionId: string;
  readonly epoch: string;
  readonly headSeq: number;
  /** Commit time (epoch ms) of the last event; undefined when the session has none. */
  readonly lastActivity: number | undefined;
  /**
   * About how many bytes the session's log takes in the store: Redis, `MEMORY USAGE` of its stream (sampled);
   * memory engine, the sum of its stored bodies.
   */
  readonly bytes: number;
  /** `createdAt` falls back to the first event's commit time when it was never recorded. */
  readonly metadata: SessionMetadata;
}

/**
 * Session metadata (docs/storage.md#session-metadata): one record per session beside its log (Redis: the hash
 * `{<id>}:meta`), deleted with the session. A change is published to every node watching the session
 * (`StoreWatchHandlers.onMetadata`) with its `rev`.
 */
export interface MetadataStore {
  /** The session's metadata; undefined when the session does not exist (has no epoch). Never writes. */
  get(sessionId: string): Promise<SessionMetadata | undefined>;
  /**
   * Merges `patch` (checked with `parseMetadataPatch`) into the session's metadata in one atomic step and publishes
   * the result; undefined (nothing written) when the session does not exist. More labels than
   * `METADATA_LIMITS.labels` after the merge: `MetadataError`, nothing written.
   */
  patch(sessionId: string, patch: MetadataPatch): Promise<SessionMetadata | undefined>;
  /**
   * Sets the fields of `init` the session's metadata does not have yet (whether the session exists or not: a fork
   * records its lineage before or after its first commit) and publishes the result when anything changed.
   */
  initialize(sessionId: string, init: MetadataInit): Promise<SessionMetadata>;
  /** Summaries of sessions, in the order asked; undefined for one that does not exist. Never writes. */
  summaries(sessionIds: readonly string[]): Promise<(SessionSummary | undefined)[]>;
}

/** Checks the fields of a `MetadataInit` (the hub makes them; a bad one is a bug): throws a `TypeError`. */
export function checkMetadataInit(init: MetadataInit): void {
  const { createdAt, createdBy, parent, forkSeq } = init;
  if (createdAt !== undefined && !Number.isSafeInteger(createdAt)) throw new TypeError('createdAt: epoch ms');
  if (forkSeq !== undefined && (!Number.isSafeInteger(forkSeq) || forkSeq < -1)) throw new TypeError('forkSeq');
  for (const text of [createdBy, parent]) {
    if (text !== undefined && (typeof text !== 'string' || text.length > 1024)) throw new TypeError('a string ≤ 1024');
  }
}
