import { byJoinOrder, type PresenceEntry, type PresenceStore } from '../presence-store.ts';
import type { MemoryBackend } from './memory-backend.ts';

interface Stored {
  readonly entry: PresenceEntry;
  readonly expiresAt: number;
}

/** Presence of the memory engine: kept beside the shared backend, so every "node" on it sees the same watchers. */
const bySessionOfBackend = new WeakMap<MemoryBackend, Map<string, Map<string, Stored>>>();

export class MemoryPresence implements PresenceStore {
  readonly #sessions: Map<string, Map<string, Stored>>;
  readonly #now: () => number;

  constructor(backend: MemoryBackend, now: () => number = Date.now) {
    let sessions = bySessionOfBackend.get(backend);
    if (sessions === undefined) {
      sessions = new Map();
      bySessionOfBackend.set(backend, sessions);
    }
    this.#sessions = sessions;
    this.#now = now;
  }

  async refresh(sessionId: string, entries: readonly PresenceEntry[], ttlMs: number): Promise<void> {
    const now = this.#now();
    const watchers = this.#sessions.get(sessionId) ?? new Map<string, Stored>();
    for (const [id, stored] of watchers) if (stored.expiresAt <= now) watchers.delete(id);
    for (const entry of entries) watchers.set(entry.id, { entry, expiresAt: now + ttlMs });
    if (watchers.size > 0) this.#sessions.set(sessionId, watchers);
    else this.#sessions.delete(sessionId);
  }

  async remove(sessionId: string, ids: readonly string[]): Promise<void> {
    const watchers = this.#sessions.get(sessionId);
    if (watchers === undefined) return;
    for (const id of ids) watchers.delete(id);
    if (watchers.size === 0) this.#sessions.delete(sessionId);
  }

  async list(sessionId: string): Promise<PresenceEntry[]> {
    const now = this.#now();
    const watchers = this.#sessions.get(sessionId);
    if (watchers === undefined) return [];
    return [...watchers.values()]
      .filter((stored) => stored.expiresAt > now)
      .map((stored) => stored.entry)
      .sort(byJoinOrder);
  }
}
