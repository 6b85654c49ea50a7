import type { SessionEvent } from '../../../shared/index.ts';
import type { CommittedBatch } from '../event-store.ts';
import { newEpoch } from '../new-epoch.ts';
import type { SessionMetadata } from '../metadata-store.ts';

/** What an idempotency key remembers: the seqs and time of the batch it committed (the events are in the log). */
export interface IdempotencyRecord {
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly time: number;
}

/** One session's data in memory: it exists from its first commit until it is deleted. */
export interface MemorySession {
  readonly epoch: string;
  /** The events the log holds: `events[i]` has seq `firstSeq + i`. */
  readonly events: SessionEvent[];
  /** The first seq the log holds: 0, or where the last trim left it (`EventStore.trim`). */
  firstSeq: number;
  readonly idempotency: Map<string, IdempotencyRecord>;
}

/** The session's length: its next seq (0 for a session that does not exist). */
export function nextSeqOf(session: MemorySession | undefined): number {
  return session === undefined ? 0 : session.firstSeq + session.events.length;
}

/** A session's restore stage (restore-store.ts): its events from `firstSeq` on, and when it lapses (epoch ms). */
export interface RestoreStage {
  readonly firstSeq: number;
  readonly events: SessionEvent[];
  until: number;
}

/** What a store hears from its backend: committed batches, and sessions that were deleted. */
export interface BackendListener {
  committed(batch: CommittedBatch): void;
  deleted(sessionId: string): void;
  /** A session's metadata changed. */
  metadata?(sessionId: string, metadata: SessionMetadata): void;
}

/**
 * The shared "server" of in-memory stores: sessions and the notification bus. Several `MemoryStore`s on one
 * backend behave like several hub nodes on one Redis.
 */
export class MemoryBackend {
  readonly #sessions = new Map<string, MemorySession>();
  readonly #listeners = new Set<BackendListener>();
  /** Each session's stored snapshot, encoded as the Redis engine stores it (`codec/snapshot-codec.ts`). */
  readonly snapshots = new Map<string, Uint8Array>();
  /** Each session's epochs made by redactions → the epoch each replaced (deleted with the session). */
  readonly priorEpochs = new Map<string, Map<string, string>>();
  /** Each session's snapshot build lease: its holder and when it lapses (epoch ms). */
  readonly snapshotLeases = new Map<string, { readonly owner: string; readonly until: number }>();
  /** Each expired session's retention tombstone: when it expired, and when the tombstone lapses (epoch ms). */
  readonly tombstones = new Map<string, { readonly expiredAt: number; readonly until: number }>();
  /** The retention sweep lease: its holder and when it lapses (epoch ms). */
  sweepLease: { readonly owner: string; readonly until: number } | undefined;
  /** Each session's archive lease: its holder's token and when it lapses (epoch ms). */
  readonly archiveLeases = new Map<string, { readonly token: string; readonly until: number }>();
  /** Each session's bytes committed since its last snapshot byte trigger, and the epoch they were counted in. */
  readonly snapshotBytes = new Map<string, { epoch: string; bytes: number }>();
  /** Each session's metadata (deleted with the session). */
  readonly metadata = new Map<string, SessionMetadata>();
  /** Each session's restore stage (deleted with the session). */
  readonly restoreStages = new Map<string, RestoreStage>();

  /** The session, created (with a fresh epoch) if it has none: for a commit that writes events, never a read. */
  session(sessionId: string): MemorySession {
    let session = this.#sessions.get(sessionId);
    if (session === undefined) {
      session = { epoch: newEpoch(), events: [], firstSeq: 0, idempotency: new Map() };
      this.#sessions.set(sessionId, session);
    }
    return session;
  }

  /** The session if it exists (was written and not deleted since). */
  peek(sessionId: string): MemorySession | undefined {
    return this.#sessions.get(sessionId);
  }

  /** Sessions held in memory. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Ids of the sessions that exist. */
  sessionIds(): string[] {
    return [...this.#sessions.keys()];
  }

  /** Forget a session entirely (its next commit gets a new epoch) and tell every listening store. */
  delete(sessionId: string): boolean {
    const deleted = this.#sessions.delete(sessionId);
    this.snapshots.delete(sessionId);
    this.priorEpochs.delete(sessionId);
    const hadTombstone = this.tombstones.delete(sessionId);
    this.snapshotBytes.delete(sessionId);
    this.metadata.delete(sessionId);
    this.restoreStages.delete(sessionId);
    for (const listener of this.#listeners) queueMicrotask(() => listener.deleted(sessionId));
    return deleted || hadTombstone;
  }

  /**
   * Put a rewritten session in place of the old one (a redaction: new events and a new epoch), drop its snapshot and
   * tell every listening store as for a deletion (their watchers re-read under the new epoch).
   */
  rewrite(sessionId: string, session: MemorySession): void {
    this.#sessions.set(sessionId, session);
    this.snapshots.delete(sessionId);
    for (const listener of this.#listeners) queueMicrotask(() => listener.deleted(sessionId));
  }

  /** Tell every listening store that a session changed under its watchers (a fork made on its id): re-read it. */
  resync(sessionId: string): void {
    for (const listener of this.#listeners) queueMicrotask(() => listener.deleted(sessionId));
  }

  /** Announce a committed batch to every listening store, asynchronously but in commit order. */
  publish(batch: CommittedBatch): void {
    for (const listener of this.#listeners) queueMicrotask(() => listener.committed(batch));
  }

  /** Announce a session's new metadata to every listening store, asynchronously. */
  publishMetadata(sessionId: string, metadata: SessionMetadata): void {
    for (const listener of this.#listeners) queueMicrotask(() => listener.metadata?.(sessionId, metadata));
  }

  listen(listener: BackendListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
