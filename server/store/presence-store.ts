/**
 * Presence: who is watching a session, across every node. Each node writes its own watchers with an expiry and
 * refreshes them; a node that dies stops refreshing, and its watchers lapse after the TTL. Reads never write.
 */

/** One watcher: a subscription to a session on some node. */
export interface PresenceEntry {
  /** Unique per subscription (node name + a per-node counter). */
  readonly id: string;
  /** The token's subject, or `anonymous` on an open hub. */
  readonly subject: string;
  readonly node: string;
  /** When the subscription started (epoch ms, the node's clock). */
  readonly since: number;
  /** What the client called itself (`subscribe({ label })`), if anything. */
  readonly label?: string;
}

export interface PresenceStore {
  /** Write (or keep alive) these watchers of a session for `ttlMs`; entries of any node that lapsed are dropped. */
  refresh(sessionId: string, entries: readonly PresenceEntry[], ttlMs: number): Promise<void>;
  /** Drop watchers (a subscription ended). */
  remove(sessionId: string, ids: readonly string[]): Promise<void>;
  /** The session's watchers that have not lapsed, by `since` then `id`. Writes nothing. */
  list(sessionId: string): Promise<PresenceEntry[]>;
}

/** Most watchers listed per session (more are watching, but are not tracked one by one). */
export const MAX_WATCHERS_PER_SESSION = 1000;
/** Longest client label kept. */
export const MAX_PRESENCE_LABEL_LENGTH = 128;

export function byJoinOrder(a: PresenceEntry, b: PresenceEntry): number {
  return a.since - b.since || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Parse a stored entry (JSON written by `refresh`); undefined when it is not one. */
export function parsePresenceEntry(text: string): PresenceEntry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const { id, subject, node, since, label } = value as Record<string, unknown>;
  if (typeof id !== 'string' || typeof subject !== 'string' || typeof node !== 'string') return undefined;
  if (typeof since !== 'number' || !Number.isFinite(since)) return undefined;
  return { id, subject, node, since, ...(typeof label === 'string' ? { label } : {}) };
}
