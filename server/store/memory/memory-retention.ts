import { hasForks } from './memory-forks.ts';
import { StoreUnavailableError } from '../event-store.ts';
import {
  checkExpireRequest,
  type ExpireRequest,
  type ExpireResult,
  type ExpiryStatus,
  type RetentionStore,
  type SessionActivity,
  type SessionScanPage,
} from '../retention-store.ts';
import { validateSessionId } from '../session-id.ts';
import { nextSeqOf, type MemoryBackend } from './memory-backend.ts';

/** The memory engine's retention: tombstones and the sweep lease kept in the backend, with the Redis engine's rules. */
export class MemoryRetention implements RetentionStore {
  readonly #backend: MemoryBackend;
  readonly #isClosed: () => boolean;

  constructor(backend: MemoryBackend, isClosed: () => boolean) {
    this.#backend = backend;
    this.#isClosed = isClosed;
  }

  async status(sessionId: string): Promise<ExpiryStatus> {
    this.#check(sessionId);
    const tombstone = this.#backend.tombstones.get(sessionId);
    if (tombstone === undefined || this.#backend.peek(sessionId) !== undefined) return { status: 'not-expired' };
    if (tombstone.until <= Date.now()) {
      this.#backend.tombstones.delete(sessionId);
      return { status: 'not-expired' };
    }
    return { status: 'expired', expiredAt: tombstone.expiredAt };
  }

  async activity(sessionId: string): Promise<SessionActivity | undefined> {
    this.#check(sessionId);
    const session = this.#backend.peek(sessionId);
    if (session === undefined) return undefined;
    const last = session.events[session.events.length - 1];
    return { epoch: session.epoch, headSeq: nextSeqOf(session) - 1, lastActivity: last?.time };
  }

  async expire(sessionId: string, request: ExpireRequest): Promise<ExpireResult> {
    this.#check(sessionId);
    checkExpireRequest(request);
    const session = this.#backend.peek(sessionId);
    if (session === undefined) return { status: 'missing' };
    const { epoch } = session;
    if (request.expectedEpoch !== undefined && request.expectedEpoch !== epoch) return { status: 'conflict', epoch };
    const lastActivity = session.events[session.events.length - 1]?.time;
    const idle =
      request.idleSince === undefined ||
      (lastActivity === undefined ? request.emptyIsIdle === true : lastActivity <= request.idleSince);
    // A session with forks stays while they do: they read their prefix from it (docs/operations.md, Retention).
    if (!idle || hasForks(this.#backend, sessionId)) return { status: 'active', epoch, lastActivity };
    const headSeq = nextSeqOf(session) - 1;
    this.#backend.delete(sessionId); // tells every store on the backend, as a deletion does
    this.#backend.snapshotLeases.delete(sessionId);
    const until = Date.now() + request.tombstoneTtlMs;
    this.#backend.tombstones.set(sessionId, { expiredAt: request.expiredAt, until });
    return { status: 'expired', epoch, headSeq, lastActivity };
  }

  /** The cursor is the index of the next session in the backend's list of ids (`''` to start and when done). */
  async scan(cursor: string, count: number): Promise<SessionScanPage> {
    this.#checkOpen();
    const ids = this.#backend.sessionIds();
    const start = cursor === '' ? 0 : Number(cursor);
    if (!Number.isSafeInteger(start) || start < 0) return { cursor: '', sessionIds: [] };
    const end = start + Math.max(1, Math.floor(count));
    return { cursor: end < ids.length ? String(end) : '', sessionIds: ids.slice(start, end) };
  }

  async lease(owner: string, ttlMs: number): Promise<boolean> {
    this.#checkOpen();
    const now = Date.now();
    const held = this.#backend.sweepLease;
    if (held !== undefined && held.until > now && held.owner !== owner) return false;
    this.#backend.sweepLease = { owner, until: now + Math.max(1, Math.ceil(ttlMs)) };
    return true;
  }

  async release(owner: string): Promise<void> {
    this.#checkOpen();
    if (this.#backend.sweepLease?.owner === owner) this.#backend.sweepLease = undefined;
  }

  #check(sessionId: string): void {
    this.#checkOpen();
    validateSessionId(sessionId);
  }

  #checkOpen(): void {
    if (this.#isClosed()) throw new StoreUnavailableError('the store is closed');
  }
}
