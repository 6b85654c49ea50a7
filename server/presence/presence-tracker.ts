import type { Logger } from '../logger.ts';
import { MAX_WATCHERS_PER_SESSION, type PresenceEntry, type PresenceStore } from '../store/presence-store.ts';

/** A change of a session's watchers, for the subscriptions that follow presence. */
export interface PresenceUpdate {
  readonly watchers: readonly PresenceEntry[];
  readonly joined: readonly PresenceEntry[];
  readonly left: readonly PresenceEntry[];
}

export type PresenceListener = (update: PresenceUpdate) => void;

/** This node's watchers of one session: the one entry as is (the common case), a `Map` by id from the second. */
type LocalWatchers = PresenceEntry | Map<string, PresenceEntry>;

function localEntries(local: LocalWatchers): PresenceEntry[] {
  return local instanceof Map ? [...local.values()] : [local];
}

function localCount(local: LocalWatchers | undefined): number {
  if (local === undefined) return 0;
  return local instanceof Map ? local.size : 1;
}

/** `local` with `entry` added (the same `Map` when it is one). */
function withEntry(local: LocalWatchers | undefined, entry: PresenceEntry): LocalWatchers {
  if (local === undefined) return entry;
  const map = local instanceof Map ? local : new Map([[local.id, local]]);
  return map.set(entry.id, entry);
}

export interface PresenceTrackerOptions {
  readonly store: PresenceStore;
  readonly nodeName: string;
  readonly logger: Logger;
  /** A watcher this node stops refreshing (it died) lapses after this long. */
  readonly ttlMs: number;
  /** How often followed sessions are read for joins and leaves on other nodes. */
  readonly pollMs: number;
}

/**
 * This node's side of presence. It writes its own watchers (one per subscription) to the presence store and
 * refreshes them every third of the TTL; for the sessions some subscription follows, it reads the whole list every
 * `pollMs` (and at once after a local join or leave) and tells the followers what changed. Store failures are
 * logged and retried on the next tick: presence is advisory and never fails a subscription.
 */
export class PresenceTracker {
  readonly #options: PresenceTrackerOptions;
  readonly #local = new Map<string, LocalWatchers>();
  readonly #followers = new Map<string, Set<PresenceListener>>();
  readonly #seen = new Map<string, readonly PresenceEntry[]>();
  readonly #polling = new Set<string>();
  readonly #refreshTimer: NodeJS.Timeout;
  readonly #pollTimer: NodeJS.Timeout;
  #counter = 0;
  #closed = false;
  /** A store call failed and none has succeeded since. */
  #failing = false;

  constructor(options: PresenceTrackerOptions) {
    this.#options = options;
    this.#refreshTimer = setInterval(() => this.#refreshAll(), Math.max(50, Math.floor(options.ttlMs / 3)));
    this.#refreshTimer.unref();
    this.#pollTimer = setInterval(() => this.#pollAll(), Math.max(50, options.pollMs));
    this.#pollTimer.unref();
  }

  /** A subscription started: it is a watcher. Returns its id, or undefined when the session has too many listed. */
  join(sessionId: string, subject: string, label?: string): string | undefined {
    if (this.#closed) return undefined;
    const local = this.#local.get(sessionId);
    if (localCount(local) >= MAX_WATCHERS_PER_SESSION) return undefined;
    this.#counter += 1;
    const id = `${this.#options.nodeName}/${this.#counter}`;
    const node = this.#options.nodeName;
    const since = Date.now();
    // Two plain literals: a spread of an optional label made the object 8 bytes larger (one per subscription).
    const entry: PresenceEntry =
      label === undefined ? { id, subject, node, since } : { id, subject, node, since, label };
    this.#local.set(sessionId, withEntry(local, entry));
    this.#write(sessionId, this.#options.store.refresh(sessionId, [entry], this.#options.ttlMs));
    return id;
  }

  /** A subscription ended. */
  leave(sessionId: string, id: string): void {
    const local = this.#local.get(sessionId);
    if (local instanceof Map) {
      if (!local.delete(id)) return;
      const [only] = local.values();
      if (local.size === 1 && only !== undefined) this.#local.set(sessionId, only);
    } else {
      if (local?.id !== id) return;
      this.#local.delete(sessionId);
    }
    this.#write(sessionId, this.#options.store.remove(sessionId, [id]));
  }

  /** Follow a session's watchers: `listener` gets the current list first, then every change. Returns unfollow. */
  follow(sessionId: string, listener: PresenceListener): () => void {
    const listeners = this.#followers.get(sessionId) ?? new Set<PresenceListener>();
    listeners.add(listener);
    this.#followers.set(sessionId, listeners);
    const seen = this.#seen.get(sessionId);
    if (seen !== undefined) listener({ watchers: seen, joined: seen, left: [] });
    else this.#poll(sessionId);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.#followers.get(sessionId) === listeners) {
        this.#followers.delete(sessionId);
        this.#seen.delete(sessionId);
      }
    };
  }

  /** The watchers of a session now (any node). */
  list(sessionId: string): Promise<PresenceEntry[]> {
    return this.#options.store.list(sessionId);
  }

  /** Stop the timers and remove this node's watchers from the store (so others see them leave at once). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#refreshTimer);
    clearInterval(this.#pollTimer);
    this.#followers.clear();
    const removals = [...this.#local].map(([sessionId, local]) =>
      this.#options.store
        .remove(
          sessionId,
          localEntries(local).map((entry) => entry.id),
        )
        .catch((error: unknown) => {
          this.#options.logger.debug({ err: error, sessionId }, 'presence: could not remove watchers on close');
        }),
    );
    this.#local.clear();
    await Promise.all(removals);
  }

  /** After a local write: log a failure, and let followers of the session see the change now. */
  #write(sessionId: string, done: Promise<void>): void {
    done.then(
      () => {
        this.#failing = false;
        this.#poll(sessionId);
      },
      (error: unknown) => this.#storeFailed(error, sessionId, 'presence: store write failed'),
    );
  }

  /**
   * A store call failed: warn once per outage (a hub closing on a store that went away would otherwise log one line
   * per subscription), then at debug until a write succeeds again.
   */
  #storeFailed(error: unknown, sessionId: string, message: string): void {
    if (this.#failing) {
      this.#options.logger.debug({ err: error, sessionId }, message);
      return;
    }
    this.#failing = true;
    this.#options.logger.warn(
      { err: error, sessionId },
      `${message} (more failures are logged at debug until it recovers)`,
    );
  }

  #refreshAll(): void {
    for (const [sessionId, local] of this.#local) {
      this.#options.store.refresh(sessionId, localEntries(local), this.#options.ttlMs).then(
        () => {
          this.#failing = false;
        },
        (error: unknown) => this.#storeFailed(error, sessionId, 'presence: refresh failed'),
      );
    }
  }

  #pollAll(): void {
    for (const sessionId of this.#followers.keys()) this.#poll(sessionId);
  }

  #poll(sessionId: string): void {
    if (this.#closed || this.#polling.has(sessionId) || !this.#followers.has(sessionId)) return;
    this.#polling.add(sessionId);
    this.#options.store
      .list(sessionId)
      .then((watchers) => this.#publish(sessionId, watchers))
      .catch((error: unknown) => this.#storeFailed(error, sessionId, 'presence: read failed'))
      .finally(() => this.#polling.delete(sessionId));
  }

  #publish(sessionId: string, watchers: readonly PresenceEntry[]): void {
    const listeners = this.#followers.get(sessionId);
    if (listeners === undefined) return;
    const before = this.#seen.get(sessionId);
    const beforeIds = new Set((before ?? []).map((watcher) => watcher.id));
    const nowIds = new Set(watchers.map((watcher) => watcher.id));
    const joined = watchers.filter((watcher) => !beforeIds.has(watcher.id));
    const left = (before ?? []).filter((watcher) => !nowIds.has(watcher.id));
    if (before !== undefined && joined.length === 0 && left.length === 0) return;
    this.#seen.set(sessionId, watchers);
    for (const listener of [...listeners]) {
      try {
        listener({ watchers, joined, left });
      } catch (error) {
        this.#options.logger.error({ err: error, sessionId }, 'presence: a listener failed');
      }
    }
  }
}
