import type { SessionEvent } from '../../../shared/index.ts';
import type { StoreCounters } from '../../metrics.ts';
import {
  StoreDataError,
  type CommitRequest,
  type CommitResult,
  type EventStore,
  type GroupCommitRequest,
  type GroupCommitResult,
  type KeyLookup,
  type KeyLookupRequest,
  type SessionHead,
  type StoredPage,
  type StoreWatchHandlers,
} from '../event-store.ts';
import { MAX_FORK_DEPTH, StoreForkParentError, type ForkStore, type Lineage } from '../fork-store.ts';
import type { MetadataStore } from '../metadata-store.ts';
import type { ArchiveLeaseStore } from '../archive-lease.ts';
import type { RestoreStore } from '../restore-store.ts';
import type { RetentionStore } from '../retention-store.ts';
import type { RedactionStore } from '../redaction-store.ts';
import type { PresenceStore } from '../presence-store.ts';
import type { SnapshotStore } from '../snapshot-store.ts';
import type { IdempotencyPruneRequest, IdempotencyPruneResult } from '../idempotency-prune.ts';
import type { TrimRequest, TrimResult } from '../trim.ts';
import { StoreTrimmedError } from '../trimmed-error.ts';
import { LineageCache } from './lineage-cache.ts';
import { LineageSnapshots } from './lineage-snapshots.ts';

/** The engine's page read, with its optional bound by bytes. */
type PageRead = (sessionId: string, fromSeq: number, limit: number, maxBytes?: number) => Promise<BoundedPage>;
/** A stored page that may say it was cut short for bytes (`maxBytes`): more events follow within its limit. */
type BoundedPage = StoredPage & { readonly truncated?: boolean };

/** A fork's prefix as a reader of the fork sees it: where to read it, and the fork's epoch to tag it with. */
interface Prefix {
  readonly epoch: string;
  readonly lineage: Lineage;
}

/** A parent's read (a page, or events) made before the fork's own read confirmed the lineage it was made for. */
interface EarlyRead<T> {
  readonly lineage: Lineage;
  readonly result: Promise<T>;
}

/** A read of a fork's parent: `wanted` seqs from the read's `fromSeq`, one hop further. */
type ParentRead<T> = (parent: string, wanted: number) => Promise<T>;

function sameLineage(a: Lineage, b: Lineage): boolean {
  return a.parent === b.parent && a.forkSeq === b.forkSeq && a.parentEpoch === b.parentEpoch;
}

/**
 * The store as the hub reads it: an engine whose forks read their prefix from their parents (docs/storage.md#forks).
 * An engine holds a fork's own events only, from its base `forkSeq + 1`, and refuses reads below it
 * (`StoreTrimmedError`); this layer answers those from the parent, up to `forkSeq`, recursively for a fork of a fork
 * (at most `MAX_FORK_DEPTH` hops), tagged with the fork's epoch, after checking that the parent is still in the epoch
 * the fork was made from (else `StoreForkParentError`). A page that reaches `forkSeq` goes on with the fork's own
 * events (read in the same epoch), so a page ends early only where the log does.
 * So a fork costs nothing to make whatever its parent's length, and an edit of the parent's prefix (a redaction)
 * shows in every fork. Writes, heads, idempotency and watches are the engine's: a fork's own. A fork without a
 * snapshot of its own is served its parent's when it covers the shared prefix only (lineage-snapshots.ts).
 * Round trips: the lineage read is cached per epoch (lineage-cache.ts; the engines' refused page reads say the epoch),
 * and a page of a fork known to this layer reads the parent's page together with the fork's own (refused) read, so
 * a page of a fork's prefix costs about one round trip, as the parent's own does (docs/performance.md#forks).
 */
export class LineageStore implements EventStore {
  readonly engine: EventStore['engine'];
  readonly presence: PresenceStore;
  readonly snapshots: SnapshotStore;
  readonly forks: ForkStore;
  readonly metadata: MetadataStore;
  readonly retention: RetentionStore;
  readonly redactions: RedactionStore;
  readonly archiveLease: ArchiveLeaseStore;
  readonly restore: RestoreStore;
  readonly counters?: StoreCounters;
  readonly #inner: EventStore;
  readonly #lineages: LineageCache;

  constructor(inner: EventStore) {
    this.#inner = inner;
    this.engine = inner.engine;
    this.presence = inner.presence;
    this.#lineages = new LineageCache(inner.forks, inner.redactions);
    this.snapshots = new LineageSnapshots(inner.snapshots, this.#lineages);
    this.forks = inner.forks;
    this.metadata = inner.metadata;
    this.retention = inner.retention;
    this.redactions = inner.redactions;
    this.archiveLease = inner.archiveLease;
    this.restore = inner.restore;
    if (inner.counters !== undefined) this.counters = inner.counters;
  }

  /** Whether the parent's epoch `now` was made by redactions from `forkedIn` (the prefix is the same, redacted). */
  async #redactedSince(parent: string, forkedIn: string, now: string | undefined): Promise<boolean> {
    return now !== undefined && (await this.#lineages.priorEpochs(parent, now)).includes(forkedIn);
  }

  /** `store` read through its forks' lineage (itself when it is already). */
  static over(store: EventStore): EventStore {
    return store instanceof LineageStore ? store : new LineageStore(store);
  }

  /** The engine's head; a fork's `firstSeq` is its prefix's (absent when the prefix reaches seq 0). */
  async head(sessionId: string): Promise<SessionHead> {
    return this.#head(sessionId, 0);
  }

  async #head(sessionId: string, hops: number): Promise<SessionHead> {
    const head = await this.#inner.head(sessionId);
    if (head.firstSeq === undefined || head.firstSeq === 0) return head;
    const prefix = await this.#prefixBelow(sessionId, head.firstSeq, hops, head.epoch);
    if (prefix === undefined) return head;
    const parentFirst = (await this.#head(prefix.lineage.parent, hops + 1)).firstSeq ?? 0;
    const { epoch, headSeq } = head;
    if (parentFirst > prefix.lineage.forkSeq) return head;
    return parentFirst === 0 ? { epoch, headSeq } : { epoch, headSeq, firstSeq: parentFirst };
  }

  commit(request: CommitRequest): Promise<CommitResult> {
    return this.#inner.commit(request);
  }

  commitGroup(request: GroupCommitRequest): Promise<GroupCommitResult> {
    return this.#inner.commitGroup(request);
  }

  lookupKeys(request: KeyLookupRequest): Promise<KeyLookup> {
    return this.#inner.lookupKeys(request);
  }

  async read(sessionId: string, fromSeq: number, limit: number): Promise<readonly SessionEvent[]> {
    return this.#read(sessionId, fromSeq, limit, 0);
  }

  async #read(sessionId: string, fromSeq: number, limit: number, hops: number): Promise<readonly SessionEvent[]> {
    const readParent: ParentRead<readonly SessionEvent[]> = (parent, wanted) =>
      this.#read(parent, fromSeq, wanted, hops + 1);
    const early = this.#earlyParentRead(sessionId, fromSeq, limit, hops, readParent);
    try {
      return await this.#inner.read(sessionId, fromSeq, limit);
    } catch (error) {
      const prefix = await this.#prefixOf(error, sessionId, fromSeq, hops);
      const { forkSeq } = prefix.lineage;
      const wanted = Math.min(limit, forkSeq - fromSeq + 1);
      const events = await this.#parentRead(early, prefix.lineage, wanted, readParent);
      if (events.length < wanted || wanted === limit) return events;
      // The prefix ends at the fork seq: the rest of the page is the fork's own first events.
      const own = await this.#own(() => this.#inner.read(sessionId, forkSeq + 1, limit - wanted));
      return own === undefined ? events : [...events, ...own];
    }
  }

  /**
   * The engine's page read, with a bound by bytes where the engine takes one (`maxBytes`: the page's bodies take at
   * most that much, but for its first event; a page cut short for bytes says `truncated`).
   */
  async readStoredPage(sessionId: string, fromSeq: number, limit: number, maxBytes?: number): Promise<StoredPage> {
    return this.#readStoredPage(sessionId, fromSeq, limit, maxBytes, 0);
  }

  async #readStoredPage(
    sessionId: string,
    fromSeq: number,
    limit: number,
    maxBytes: number | undefined,
    hops: number,
  ): Promise<BoundedPage> {
    const read: PageRead = this.#inner.readStoredPage.bind(this.#inner);
    const readParent: ParentRead<BoundedPage> = (parent, wanted) =>
      this.#readStoredPage(parent, fromSeq, wanted, maxBytes, hops + 1);
    const early = this.#earlyParentRead(sessionId, fromSeq, limit, hops, readParent);
    try {
      return await read(sessionId, fromSeq, limit, maxBytes);
    } catch (error) {
      const prefix = await this.#prefixOf(error, sessionId, fromSeq, hops);
      const { parent, forkSeq, parentEpoch } = prefix.lineage;
      const wanted = Math.min(limit, forkSeq - fromSeq + 1);
      const page = await this.#parentRead(early, prefix.lineage, wanted, readParent);
      if (page.epoch !== parentEpoch && !(await this.#redactedSince(parent, parentEpoch, page.epoch))) {
        throw new StoreForkParentError(
          `session ${sessionId}: its parent ${parent} is no longer in the epoch it was forked from`,
        );
      }
      const stitched: BoundedPage = { ...page, epoch: prefix.epoch };
      if (page.truncated === true || page.bodies.length < wanted || wanted === limit) return stitched;
      // The prefix ends at the fork seq: the rest of the page is the fork's own first events, read in the same epoch
      // (a page ends early only where the log does, for every reader: the append cache stops at a short page).
      const room =
        maxBytes === undefined ? undefined : maxBytes - page.bodies.reduce((sum, body) => sum + body.length, 0);
      if (room !== undefined && room <= 0) return { ...stitched, truncated: true };
      const own = await this.#own(() => read(sessionId, forkSeq + 1, limit - wanted, room));
      if (own?.epoch !== prefix.epoch) return stitched;
      const joined = { ...stitched, bodies: [...page.bodies, ...own.bodies], times: [...page.times, ...own.times] };
      return own.truncated === true ? { ...joined, truncated: true } : joined;
    }
  }

  /**
   * For a session this layer last saw as a fork whose prefix holds `fromSeq`: the parent's read, made now, together
   * with the fork's own read (which is refused below its base and says the fork's epoch); used only when the lineage
   * of that epoch is the one guessed (else dropped). Not past the depth bound: a stale guess costs a bounded read.
   */
  #earlyParentRead<T>(
    sessionId: string,
    fromSeq: number,
    limit: number,
    hops: number,
    readParent: ParentRead<T>,
  ): EarlyRead<T> | undefined {
    const lineage = this.#lineages.guess(sessionId);
    if (lineage === undefined || fromSeq > lineage.forkSeq || hops + 1 >= MAX_FORK_DEPTH) return undefined;
    const result = readParent(lineage.parent, Math.min(limit, lineage.forkSeq - fromSeq + 1));
    result.catch(() => undefined); // a read not used may fail unheard; one used is awaited, and fails the read
    return { lineage, result };
  }

  /** The parent's read for the fork's confirmed `lineage`: the early one when it was made for it, else one now. */
  #parentRead<T>(
    early: EarlyRead<T> | undefined,
    lineage: Lineage,
    wanted: number,
    readParent: ParentRead<T>,
  ): Promise<T> {
    return early !== undefined && sameLineage(early.lineage, lineage)
      ? early.result
      : readParent(lineage.parent, wanted);
  }

  /** A read of a fork's own events right after its prefix; undefined when they are gone (trimmed past its base). */
  async #own<T>(read: () => Promise<T>): Promise<T | undefined> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof StoreTrimmedError) return undefined;
      throw error;
    }
  }

  /**
   * A read below a session's first seq failed with `error`: the fork's prefix to read instead, or `error` again
   * when the session is no fork, or the seqs are gone from the fork itself (trimmed past its base).
   */
  async #prefixOf(error: unknown, sessionId: string, fromSeq: number, hops: number): Promise<Prefix> {
    if (!(error instanceof StoreTrimmedError)) throw error;
    const prefix = await this.#prefixBelow(sessionId, error.firstSeq, hops, error.epoch);
    if (prefix === undefined || fromSeq > prefix.lineage.forkSeq) throw error;
    return prefix;
  }

  /**
   * The prefix of a session whose log starts at `firstSeq`: defined when it is a fork that starts at its base.
   * `known`: the session's epoch as a read just found it, when the read said (its lineage may then be cached).
   */
  async #prefixBelow(
    sessionId: string,
    firstSeq: number,
    hops: number,
    known: string | undefined,
  ): Promise<Prefix | undefined> {
    if (hops >= MAX_FORK_DEPTH) {
      throw new StoreDataError(`session ${sessionId}: its forks nest deeper than ${MAX_FORK_DEPTH} levels`);
    }
    const { epoch, lineage } = await this.#lineages.lineage(sessionId, known);
    if (epoch === undefined || lineage === undefined || firstSeq !== lineage.forkSeq + 1) return undefined;
    return { epoch, lineage };
  }

  trim(request: TrimRequest): Promise<TrimResult> {
    return this.#inner.trim(request);
  }
  pruneIdempotencyKeys(request: IdempotencyPruneRequest): Promise<IdempotencyPruneResult> {
    return this.#inner.pruneIdempotencyKeys(request);
  }

  watch(sessionId: string, handlers: StoreWatchHandlers): () => void {
    return this.#inner.watch(sessionId, handlers);
  }

  ping(): Promise<void> {
    return this.#inner.ping();
  }

  onReconnect(listener: () => void): () => void {
    return this.#inner.onReconnect(listener);
  }

  listSessions(prefix?: string): Promise<string[]> {
    return this.#inner.listSessions(prefix);
  }

  async deleteSession(sessionId: string): Promise<boolean> {
    this.#lineages.delete(sessionId);
    return this.#inner.deleteSession(sessionId);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
