import type { SessionEvent } from '../../../shared/index.ts';
import type { CommittedBatch } from '../event-store.ts';
import { newEpoch } from '../new-epoch.ts';
import { checkEmptySessionEpochTtl, DEFAULT_EMPTY_SESSION_EPOCH_TTL_MS } from '../empty-epoch-ttl.ts';

/** What an idempotency key remembers: the seqs and time of the batch it committed (the events are in the log). */
export interface IdempotencyRecord {
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly time: number;
}

/** One session's data in memory. */
export interface MemorySession {
  readonly epoch: string;
  readonly events: SessionEvent[];
  readonly idempotency: Map<string, IdempotencyRecord>;
  /** When the epoch of this session lapses (`Date.now()` ms) while nobody wrote it; undefined once written. */
  expiresAt: number | undefined;
}

export interface MemoryBackendOptions {
  /**
   * Lifetime of the epoch of a session nobody wrote (created by a read, a subscription or a refused commit): after
   * it the session is forgotten and its next access gets a new epoch, exactly as the Redis engine's epoch key
   * expires. So readers cannot fill the process with sessions that never exist. Default 1 hour.
   */
  readonly emptySessionEpochTtlMs?: number;
}

/** What a store hears from its backend: committed batches, and sessions that were deleted. */
export interface BackendListener {
  committed(batch: CommittedBatch): void;
  deleted(sessionId: string): void;
}

/**
 * The shared "server" of in-memory stores: sessions and the notification bus. Several `MemoryStore`s on one
 * backend behave like several hub nodes on one Redis.
 */
export class MemoryBackend {
  readonly #sessions = new Map<string, MemorySession>();
  readonly #listeners = new Set<BackendListener>();
  readonly #emptyTtlMs: number;
  /** Lapsed empty sessions are dropped in one sweep at most once per lifetime (on a new session). */
  #nextSweepAt = 0;

  constructor(options: MemoryBackendOptions = {}) {
    this.#emptyTtlMs = checkEmptySessionEpochTtl(options.emptySessionEpochTtlMs ?? DEFAULT_EMPTY_SESSION_EPOCH_TTL_MS);
  }

  /** The session, created empty (with a fresh epoch and a lifetime) on first access or after its epoch lapsed. */
  session(sessionId: string): MemorySession {
    const now = Date.now();
    let session = this.#live(sessionId, now);
    if (session === undefined) {
      this.#sweep(now);
      session = { epoch: newEpoch(), events: [], idempotency: new Map(), expiresAt: now + this.#emptyTtlMs };
      this.#sessions.set(sessionId, session);
    }
    return session;
  }

  /** The session if it was accessed and its epoch has not lapsed. */
  peek(sessionId: string): MemorySession | undefined {
    return this.#live(sessionId, Date.now());
  }

  /** Events were written to the session: its epoch is kept for good (until the session is deleted). */
  written(session: MemorySession): void {
    session.expiresAt = undefined;
  }

  /** Sessions held in memory (lapsed empty ones included until the next sweep). */
  get size(): number {
    return this.#sessions.size;
  }

  /** Ids of the sessions that have data or an epoch that has not lapsed. */
  sessionIds(): string[] {
    const now = Date.now();
    return [...this.#sessions.keys()].filter((sessionId) => this.#live(sessionId, now) !== undefined);
  }

  #live(sessionId: string, now: number): MemorySession | undefined {
    const session = this.#sessions.get(sessionId);
    if (session?.expiresAt === undefined || session.expiresAt > now) return session;
    this.#sessions.delete(sessionId);
    return undefined;
  }

  #sweep(now: number): void {
    if (now < this.#nextSweepAt) return;
    this.#nextSweepAt = now + this.#emptyTtlMs;
    for (const [sessionId, session] of this.#sessions) {
      if (session.expiresAt !== undefined && session.expiresAt <= now) this.#sessions.delete(sessionId);
    }
  }

  /** Forget a session entirely (its next access gets a new epoch) and tell every listening store. */
  delete(sessionId: string): boolean {
    const deleted = this.#sessions.delete(sessionId);
    for (const listener of this.#listeners) queueMicrotask(() => listener.deleted(sessionId));
    return deleted;
  }

  /** Announce a committed batch to every listening store, asynchronously but in commit order. */
  publish(batch: CommittedBatch): void {
    for (const listener of this.#listeners) queueMicrotask(() => listener.committed(batch));
  }

  listen(listener: BackendListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
