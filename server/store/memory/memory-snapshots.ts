import { StoreUnavailableError } from '../event-store.ts';
import { encodeSnapshot, toSnapshotRead } from '../codec/snapshot-codec.ts';
import { validateSessionId } from '../session-id.ts';
import type { SessionSnapshot, SnapshotPutResult, SnapshotRead, SnapshotStore } from '../snapshot-store.ts';
import { nextSeqOf, type MemoryBackend } from './memory-backend.ts';

/** The memory engine's snapshots: encoded and verified exactly as the Redis engine's, kept in the backend. */
export class MemorySnapshots implements SnapshotStore {
  readonly #backend: MemoryBackend;
  readonly #isClosed: () => boolean;

  constructor(backend: MemoryBackend, isClosed: () => boolean) {
    this.#backend = backend;
    this.#isClosed = isClosed;
  }

  async get(sessionId: string): Promise<SnapshotRead> {
    this.#check(sessionId);
    const session = this.#backend.peek(sessionId);
    const headSeq = nextSeqOf(session) - 1;
    return toSnapshotRead(session?.epoch, headSeq, this.#backend.snapshots.get(sessionId));
  }

  async put(sessionId: string, snapshot: SessionSnapshot): Promise<SnapshotPutResult> {
    this.#check(sessionId);
    const session = this.#backend.peek(sessionId);
    if (session === undefined || session.epoch !== snapshot.epoch) return 'stale';
    if (snapshot.seq >= nextSeqOf(session)) return 'stale';
    const stored = this.#backend.snapshots.get(sessionId);
    if (stored !== undefined) {
      const current = toSnapshotRead(session.epoch, nextSeqOf(session) - 1, stored);
      if (current.status === 'found' && current.snapshot.seq > snapshot.seq) return 'stale';
    }
    this.#backend.snapshots.set(sessionId, encodeSnapshot(snapshot));
    return 'written';
  }

  async lease(sessionId: string, owner: string, ttlMs: number): Promise<boolean> {
    this.#check(sessionId);
    const now = Date.now();
    const held = this.#backend.snapshotLeases.get(sessionId);
    if (held !== undefined && held.until > now) return false;
    this.#backend.snapshotLeases.set(sessionId, { owner, until: now + ttlMs });
    return true;
  }

  async release(sessionId: string, owner: string): Promise<void> {
    this.#check(sessionId);
    if (this.#backend.snapshotLeases.get(sessionId)?.owner === owner) this.#backend.snapshotLeases.delete(sessionId);
  }

  #check(sessionId: string): void {
    if (this.#isClosed()) throw new StoreUnavailableError('the store is closed');
    validateSessionId(sessionId);
  }
}
