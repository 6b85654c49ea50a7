import { SessionLogError, type SessionEvent } from '../../shared/index.ts';
import { HubErrorCode } from '../../shared/protocol.ts';
import { LogValidator } from '../../shared/log-validator.ts';
import { HubError } from '../hub-error.ts';
import type { Logger } from '../logger.ts';
import type { HubMetrics } from '../metrics.ts';
import { NO_EPOCH, type EventStore, type StoredPage } from '../store/event-store.ts';
import { decodeStoredPage } from '../store/codec/stored-events.ts';
import { endedLog, largestBody, StoreReadSizer, type StoreReadLimits } from '../limits/store-reads.ts';

/** Loads restarted because the session's epoch changed under them, before giving up. */
const maxLoadAttempts = 8;

function storedLogInvalid(sessionId: string): HubError {
  return new HubError(HubErrorCode.INTERNAL, `the stored log of ${sessionId} does not match this node's state`);
}

/**
 * The validation state of one session on this node, rebuilt from the store and kept up to date: a `LogValidator`
 * (length, surface index, what the surface rules need of its nodes, the open turn), never the events themselves.
 */
export interface CachedSession {
  readonly sessionId: string;
  epoch: string;
  log: LogValidator;
  /** `log.approximateBytes` when last measured (counted against the cache's byte budget). */
  bytes: number;
  /** The cache missed events (a gap in notifications): refresh from the store before the next use. */
  stale: boolean;
  /** The entry may not match the stored log (it failed validation, or the store lost events it holds): rebuild
   * it from scratch before the next use rather than bring it forward. */
  rebuild: boolean;
  lastUsed: number;
  /** Appends currently using the entry (never evicted while > 0). */
  users: number;
}

export interface SessionCacheDeps {
  readonly store: EventStore;
  readonly logger: Logger;
  readonly metrics: HubMetrics;
  /** How many events a store read asks for (bounded by bytes: see `StoreReadSizer`). */
  readonly reads: StoreReadLimits;
  readonly maxSessions: number;
  /** Budget of the cached validation states, in (approximate) bytes: least recently used ones beyond it go. */
  readonly maxBytes: number;
  readonly idleMs: number;
  /** Validate appends against the lifecycle rules (`LIFECYCLE_VIOLATION`). */
  readonly lifecycle: boolean;
}

/**
 * The validation states the append pipeline checks against, built from the store page by page on first use and
 * brought forward from this node's commits, the session channels' live batches, or a store read when a commit
 * conflicts. Least recently used entries beyond `maxSessions` or `maxBytes`, and entries idle for `idleMs`, are
 * dropped (never one in use).
 */
export class SessionCache {
  readonly #entries = new Map<string, CachedSession>();
  readonly #deps: SessionCacheDeps;
  #bytes = 0;

  constructor(deps: SessionCacheDeps) {
    this.#deps = deps;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Approximate bytes held by the cached entries. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The entry of a session (loaded from the store when missing, refreshed when stale), marked in use. */
  async acquire(sessionId: string): Promise<CachedSession> {
    let entry = this.#entries.get(sessionId);
    if (entry === undefined) {
      entry = await this.#load(sessionId);
      const raced = this.#entries.get(sessionId);
      if (raced !== undefined) entry = raced;
      else {
        this.#entries.set(sessionId, entry);
        this.#bytes += entry.bytes;
      }
    } else {
      this.#entries.delete(sessionId);
      this.#entries.set(sessionId, entry);
    }
    entry.users++;
    entry.lastUsed = Date.now();
    try {
      if (entry.stale) await this.refresh(entry);
    } catch (error) {
      entry.users--;
      throw error;
    }
    this.#evictOverflow();
    return entry;
  }

  release(entry: CachedSession): void {
    entry.users--;
    entry.lastUsed = Date.now();
    this.#measure(entry);
    this.#evictOverflow();
  }

  /**
   * Bring the entry up to the store's head. `knownEpoch`: the store's current epoch when the caller just learned
   * it (a commit conflict), which saves asking for the head. The entry is rebuilt from scratch instead
   * when the epoch changed, when it was marked for a rebuild, when the store's head (same epoch) lies below the
   * entry's (the store lost events this node saw: a failover to a lagging replica, a crash before fsync), and when
   * stored events fail validation against it (the entry did not match the stored log). Every page is read with its
   * epoch, so events of a newer epoch are never applied on top of the old one. A gap or epoch change reported by
   * `apply` while the refresh runs keeps the entry stale. Throws INTERNAL when the stored log itself is invalid.
   */
  async refresh(entry: CachedSession, knownEpoch?: string): Promise<void> {
    const { store } = this.#deps;
    entry.stale = false;
    try {
      const head = knownEpoch === undefined ? await store.head(entry.sessionId) : undefined;
      const epoch = head?.epoch ?? knownEpoch;
      if (entry.rebuild || epoch !== entry.epoch) return await this.#rebuild(entry);
      if (head !== undefined && head.headSeq < entry.log.length - 1) {
        this.storeLostEvents(entry, head.headSeq);
        return await this.#rebuild(entry);
      }
      const sizer = new StoreReadSizer(this.#deps.reads);
      for (;;) {
        const limit = sizer.count;
        const page = await this.#readPage(entry.sessionId, entry.log.length, sizer);
        if ((page.epoch ?? NO_EPOCH) !== entry.epoch) return await this.refresh(entry);
        if (this.#applyTo(entry, page.events) === 'invalid') return await this.#rebuild(entry);
        if (endedLog(page.events.length, limit, page.truncated)) return;
      }
    } catch (error) {
      entry.stale = true;
      if (error instanceof HubError && error.code === HubErrorCode.INTERNAL) this.invalidate(entry.sessionId);
      throw error;
    }
  }

  /** Replace the entry's state with a fresh load of the stored log (INTERNAL when that log is itself invalid). */
  async #rebuild(entry: CachedSession): Promise<void> {
    let fresh: CachedSession;
    try {
      fresh = await this.#load(entry.sessionId);
    } catch (error) {
      if (!(error instanceof SessionLogError)) throw error;
      this.#deps.logger.error({ err: error, sessionId: entry.sessionId }, 'the stored log failed validation');
      throw storedLogInvalid(entry.sessionId);
    }
    entry.epoch = fresh.epoch;
    entry.log = fresh.log;
    entry.rebuild = false;
    this.#measure(entry);
  }

  /**
   * Events this node just committed at `epoch` (the entry's epoch, checked by the store). Throws INTERNAL, and
   * drops the entry, when they fail validation against the entry (the entry did not match the stored log).
   */
  applyOwnCommit(entry: CachedSession, epoch: string, events: readonly SessionEvent[]): void {
    // The first commit of a session without an epoch gave it one (the store checked the head was still empty).
    if (entry.epoch === NO_EPOCH && entry.log.length === 0) entry.epoch = epoch;
    if (epoch !== entry.epoch) {
      this.invalidate(entry.sessionId);
      return;
    }
    if (this.#applyTo(entry, events, true) === 'invalid') {
      this.invalidate(entry.sessionId);
      throw storedLogInvalid(entry.sessionId);
    }
  }

  /** Committed events of a session (from this node or the live stream); ignored when the session is not cached. */
  apply(sessionId: string, epoch: string, events: readonly SessionEvent[]): void {
    const entry = this.#entries.get(sessionId);
    if (entry === undefined) return;
    // Another node's first commit gave the session its epoch: the entry (still empty) continues in it.
    if (entry.epoch === NO_EPOCH && entry.log.length === 0 && events[0]?.seq === 0) entry.epoch = epoch;
    if (epoch !== entry.epoch) {
      entry.stale = true;
      return;
    }
    this.#applyTo(entry, events);
  }

  /**
   * The store answered a commit at `expectedSeq` with a head below it in the entry's own epoch: it lost events
   * this node saw (a failover to a lagging replica, a crash before fsync). Rebuild the entry before its next use.
   */
  storeLostEvents(entry: CachedSession, storeHeadSeq: number): void {
    this.#deps.logger.warn(
      { sessionId: entry.sessionId, storeHeadSeq, cachedHeadSeq: entry.log.length - 1 },
      'the store holds fewer events than this node saw in the same epoch (lost writes?): rebuilding from the store',
    );
    entry.stale = true;
    entry.rebuild = true;
  }

  /** Forget a session (e.g. its epoch changed); an entry in use is marked for a rebuild before its next use. */
  invalidate(sessionId: string): void {
    const entry = this.#entries.get(sessionId);
    if (entry === undefined) return;
    if (entry.users > 0) {
      entry.stale = true;
      entry.rebuild = true;
    } else this.#drop(sessionId, entry);
    this.#deps.metrics.cachedSessions.set(this.#entries.size);
  }

  /** Drop entries unused for `idleMs`. */
  sweep(now = Date.now()): void {
    for (const [sessionId, entry] of this.#entries) {
      if (entry.users === 0 && now - entry.lastUsed >= this.#deps.idleMs) this.#drop(sessionId, entry);
    }
    this.#deps.metrics.cachedSessions.set(this.#entries.size);
  }

  /**
   * The store's connection came back after an outage, and the store may have lost writes this node saw (see
   * `EventStore.onReconnect`): every entry is rebuilt from the store before its next use. Idle entries are dropped.
   */
  storeReconnected(): void {
    for (const sessionId of [...this.#entries.keys()]) this.invalidate(sessionId);
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
    this.#deps.metrics.cachedSessions.set(0);
  }

  /** Apply events at the entry's end: 'gap' (marked stale) when they do not start there, 'invalid' when rejected. */
  #applyTo(entry: CachedSession, events: readonly SessionEvent[], checked = false): 'applied' | 'gap' | 'invalid' {
    const fresh = events.filter((event) => event.seq >= entry.log.length);
    if (fresh.length === 0) return 'applied';
    if (fresh[0]!.seq !== entry.log.length) {
      entry.stale = true;
      return 'gap';
    }
    try {
      // This node's own commits were validated against this very session just before: no second content check.
      if (checked) entry.log.commitChecked(fresh);
      else entry.log.checkStored(fresh, true);
      if (entry.users === 0) this.#measure(entry);
      return 'applied';
    } catch (error) {
      this.#deps.logger.error({ err: error, sessionId: entry.sessionId }, 'stored events failed validation');
      entry.stale = true;
      return 'invalid';
    }
  }

  /**
   * Build an entry from the store: the head's epoch, and every page read in that same epoch folded into a new
   * validator page by page (else start over), so a long log never sits in memory whole.
   */
  async #load(sessionId: string): Promise<CachedSession> {
    const { store, reads, lifecycle } = this.#deps;
    for (let attempt = 0; attempt < maxLoadAttempts; attempt++) {
      const head = await store.head(sessionId);
      const log = new LogValidator({ lifecycle });
      const sizer = new StoreReadSizer(reads);
      let sameEpoch = true;
      if (head.epoch === NO_EPOCH && head.headSeq >= 0) {
        // A log whose epoch key is gone (docs/storage.md): pages read as empty, so fold the raw log, then make
        // sure it is still the same; the next commit (at its length) gives the session a new epoch. `read`
        // returns no stored sizes: every read assumes events as large as allowed (rare: an evicted key).
        for (;;) {
          const limit = sizer.count;
          const events = await store.read(sessionId, log.length, limit);
          log.checkStored(events, true);
          if (events.length < limit) break;
        }
        const after = await store.head(sessionId);
        sameEpoch = after.epoch === NO_EPOCH && after.headSeq === log.length - 1;
      } else {
        for (;;) {
          const limit = sizer.count;
          const page = await this.#readPage(sessionId, log.length, sizer);
          sameEpoch = (page.epoch ?? NO_EPOCH) === head.epoch;
          if (!sameEpoch) break;
          log.checkStored(page.events, true);
          if (endedLog(page.events.length, limit, page.truncated)) break;
        }
      }
      if (sameEpoch) {
        const bytes = log.approximateBytes;
        return { sessionId, epoch: head.epoch, log, bytes, stale: false, rebuild: false, lastUsed: 0, users: 0 };
      }
    }
    throw new HubError(HubErrorCode.STORE_UNAVAILABLE, `the epoch of ${sessionId} kept changing while loading it`);
  }

  /**
   * The events from `fromSeq`, `sizer.count` of them at most, with their epoch: one page at a time is all a load
   * or a refresh holds of the log (the validator keeps no event), and the page is bounded by bytes (`sizer`).
   */
  async #readPage(
    sessionId: string,
    fromSeq: number,
    sizer: StoreReadSizer,
  ): Promise<{
    readonly epoch: StoredPage['epoch'];
    readonly events: readonly SessionEvent[];
    readonly truncated: StoredPage['truncated'];
  }> {
    const page = await this.#deps.store.readStoredPage(sessionId, fromSeq, sizer.count, sizer.maxBytes);
    sizer.observe(largestBody(page.bodies));
    return { ...decodeStoredPage(sessionId, page), truncated: page.truncated };
  }

  /** Re-measure an entry's size (it changes as events are folded in). */
  #measure(entry: CachedSession): void {
    const bytes = entry.log.approximateBytes;
    if (this.#entries.get(entry.sessionId) === entry) this.#bytes += bytes - entry.bytes;
    entry.bytes = bytes;
  }

  #drop(sessionId: string, entry: CachedSession): void {
    this.#entries.delete(sessionId);
    this.#bytes -= entry.bytes;
  }

  #evictOverflow(): void {
    const { maxSessions, maxBytes } = this.#deps;
    for (const [sessionId, entry] of this.#entries) {
      if (this.#entries.size <= maxSessions && this.#bytes <= maxBytes) break;
      if (entry.users === 0) this.#drop(sessionId, entry);
    }
    this.#deps.metrics.cachedSessions.set(this.#entries.size);
  }
}
