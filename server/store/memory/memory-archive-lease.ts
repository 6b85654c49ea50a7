import { StoreUnavailableError } from '../event-store.ts';
import type { ArchiveLeaseStore } from '../archive-lease.ts';
import { checkLeaseRequest } from '../archive-lease-check.ts';
import type { MemoryBackend } from './memory-backend.ts';

/** The memory engine's archive leases: kept in the backend (shared by the stores on it), same answers as Redis. */
export class MemoryArchiveLease implements ArchiveLeaseStore {
  readonly #backend: MemoryBackend;
  readonly #isClosed: () => boolean;

  constructor(backend: MemoryBackend, isClosed: () => boolean) {
    this.#backend = backend;
    this.#isClosed = isClosed;
  }

  #held(sessionId: string): { readonly token: string; readonly until: number } | undefined {
    const held = this.#backend.archiveLeases.get(sessionId);
    if (held === undefined || held.until > Date.now()) return held;
    this.#backend.archiveLeases.delete(sessionId);
    return undefined;
  }

  async acquire(sessionId: string, token: string, ttlMs: number): Promise<boolean> {
    this.#check(sessionId, token, ttlMs);
    if (this.#held(sessionId) !== undefined) return false;
    this.#backend.archiveLeases.set(sessionId, { token, until: Date.now() + ttlMs });
    return true;
  }

  async renew(sessionId: string, token: string, ttlMs: number): Promise<boolean> {
    this.#check(sessionId, token, ttlMs);
    if (this.#held(sessionId)?.token !== token) return false;
    this.#backend.archiveLeases.set(sessionId, { token, until: Date.now() + ttlMs });
    return true;
  }

  async release(sessionId: string, token: string): Promise<boolean> {
    this.#check(sessionId, token);
    if (this.#held(sessionId)?.token !== token) return false;
    return this.#backend.archiveLeases.delete(sessionId);
  }

  #check(sessionId: string, token: string, ttlMs?: number): void {
    if (this.#isClosed()) throw new StoreUnavailableError('the memory store is closed');
    checkLeaseRequest(sessionId, token, ttlMs);
  }
}
