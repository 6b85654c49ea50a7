import type { SessionEvent } from '../../shared/index.ts';
import type { ArchiveLeaseStore } from '../store/archive-lease.ts';
import type { RestoreStore } from '../store/restore-store.ts';
import { decodeStoredPage } from '../store/codec/stored-events.ts';
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
} from '../store/event-store.ts';
import type { RetentionStore } from '../store/retention-store.ts';
import { TieredRedactions } from './tiered-redactions.ts';
import { TieredRetention } from './tiered-retention.ts';
import type { RedactionStore } from '../store/redaction-store.ts';
import type { ForkStore } from '../store/fork-store.ts';
import type { MetadataStore } from '../store/metadata-store.ts';
import type { PresenceStore } from '../store/presence-store.ts';
import type { SnapshotStore } from '../store/snapshot-store.ts';
import type { IdempotencyPruneRequest, IdempotencyPruneResult } from '../store/idempotency-prune.ts';
import type { TrimRequest, TrimResult } from '../store/trim.ts';
import { skipTrimmed, StoreTrimmedError } from '../store/trimmed-error.ts';
import type { StoreCounters } from '../metrics.ts';
import type { ArchiveBackend, ArchivedSession } from './archive-backend.ts';

/** Reads that found the hot log trimmed further while they read the archive try again this many times. */
const MAX_TIER_ATTEMPTS = 4;

/**
 * A hot read, read once more when it finds the log inconsistent (`StoreDataError`): a restore that swaps the log in
 * (restore-store.ts) between the commands of a read that is not one atomic step (the Redis engine's pipelined and
 * raw-socket reads: entries of the old log, the lower first seq of the new one) reads so; the next read does not.
 * Stored data that is really damaged fails again.
 */
async function onceMore<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof StoreDataError)) throw error;
    return read();
  }
}

const bodyBytes = (bodies: readonly Uint8Array[]): number => bodies.reduce((sum, body) => sum + body.byteLength, 0);

/**
 * The hot store (Redis or memory) and the cold tier (an `ArchiveBackend`) as one `EventStore`: the archiver writes
 * a session's prefix to the archive, then trims it from the hot log (archive-run.ts); reads below the hot log's
 * first seq come from the archive, in the same epoch only, and go on in the hot log where the archive stops, so a
 * reader gets the same seqs, times and body bytes as before the prefix was archived. The head names the archive's
 * first seq as the session's first seq. Writes, watches, leases, snapshots and metadata are the hot store's.
 *
 * The archive backend is the caller's: `close()` closes the hot store only.
 */
export class TieredStore implements EventStore {
  readonly hot: EventStore;
  readonly archive: ArchiveBackend;
  /** The hot store's own counts (the same object, kept up to date by it). */
  readonly counters?: StoreCounters;

  readonly #retention: RetentionStore;
  readonly #redactions: RedactionStore;

  constructor(hot: EventStore, archive: ArchiveBackend) {
    this.hot = hot;
    this.archive = archive;
    this.#retention = new TieredRetention(hot.retention, archive);
    this.#redactions = new TieredRedactions(hot, archive);
    if (hot.counters !== undefined) this.counters = hot.counters;
  }

  get engine(): EventStore['engine'] {
    return this.hot.engine;
  }
  get presence(): PresenceStore {
    return this.hot.presence;
  }
  get snapshots(): SnapshotStore {
    return this.hot.snapshots;
  }
  get metadata(): MetadataStore {
    return this.hot.metadata;
  }
  get archiveLease(): ArchiveLeaseStore {
    return this.hot.archiveLease;
  }
  get restore(): RestoreStore {
    return this.hot.restore;
  }
  get retention(): RetentionStore {
    return this.#retention;
  }
  get redactions(): RedactionStore {
    return this.#redactions;
  }
  get forks(): ForkStore {
    return this.hot.forks;
  }

  /**
   * The hot head; when its prefix was trimmed and the archive holds it (same epoch), the archive's first seq. While
   * the archive cannot be reached, the hot head as it is.
   */
  async head(sessionId: string): Promise<SessionHead> {
    const head = await this.hot.head(sessionId);
    if (head.firstSeq === undefined) return head;
    // An archive that cannot answer leaves the hot head (its prefix reads GONE meanwhile): a head does not fail with it.
    const cold = await this.#coldOf(sessionId, head.epoch, head.firstSeq).catch(() => undefined);
    if (cold === undefined) return head;
    const { epoch, headSeq } = head;
    return cold.startSeq > 0 ? { epoch, headSeq, firstSeq: cold.startSeq } : { epoch, headSeq };
  }

  /**
   * The archive of a session when it continues into the hot log: reaching its first seq, in the same epoch or one
   * that redactions replaced by the hot one (`redactions.priorEpochs`: a redaction rewrites the archived seqs it
   * names before the hot ones, then moves the archive to its new epoch; between the two, readers use it this way).
   */
  async #coldOf(sessionId: string, epoch: string, hotFirstSeq: number): Promise<ArchivedSession | undefined> {
    return this.#continuing(sessionId, await this.archive.describe(sessionId), epoch, hotFirstSeq);
  }

  /** `cold` (the archive's `describe`) when it continues into the hot log as `#coldOf` says; else undefined. */
  async #continuing(
    sessionId: string,
    cold: ArchivedSession | undefined,
    epoch: string,
    hotFirstSeq: number,
  ): Promise<ArchivedSession | undefined> {
    if (cold === undefined || cold.nextSeq < hotFirstSeq) return undefined;
    if (cold.epoch === epoch || (await this.hot.redactions.priorEpochs(sessionId, epoch)).includes(cold.epoch)) {
      return cold;
    }
    return undefined;
  }

  commit(request: CommitRequest): Promise<CommitResult> {
    return this.hot.commit(request);
  }
  commitGroup(request: GroupCommitRequest): Promise<GroupCommitResult> {
    return this.hot.commitGroup(request);
  }
  lookupKeys(request: KeyLookupRequest): Promise<KeyLookup> {
    return this.hot.lookupKeys(request);
  }
  trim(request: TrimRequest): Promise<TrimResult> {
    return this.hot.trim(request);
  }
  pruneIdempotencyKeys(request: IdempotencyPruneRequest): Promise<IdempotencyPruneResult> {
    return this.hot.pruneIdempotencyKeys(request);
  }

  /** Hot first; below its first seq, the tiers' page (cold, then hot) decoded, read on over short cold pages. */
  async read(sessionId: string, fromSeq: number, limit: number): Promise<readonly SessionEvent[]> {
    const hot = await onceMore(() => this.hot.read(sessionId, fromSeq, limit)).catch(skipTrimmed);
    if (!(hot instanceof StoreTrimmedError)) return hot;
    const events: SessionEvent[] = [];
    let epoch: string | undefined;
    while (events.length < limit) {
      const page = await this.readStoredPage(sessionId, fromSeq + events.length, limit - events.length);
      if (epoch !== undefined && page.epoch !== epoch) break;
      epoch = page.epoch;
      events.push(...decodeStoredPage(sessionId, page).events);
      if (page.truncated !== true || page.bodies.length === 0) break;
    }
    return events;
  }

  async readStoredPage(sessionId: string, fromSeq: number, limit: number, maxBytes?: number): Promise<StoredPage> {
    for (let attempt = 1; ; attempt++) {
      const hot = await onceMore(() => this.hot.readStoredPage(sessionId, fromSeq, limit, maxBytes)).catch(skipTrimmed);
      if (!(hot instanceof StoreTrimmedError)) return hot;
      const page = await this.#coldThenHot(sessionId, fromSeq, limit, maxBytes, hot);
      if (page !== undefined) return page;
      if (attempt >= MAX_TIER_ATTEMPTS) throw hot;
    }
  }

  /**
   * The page from `fromSeq`, below the hot log's first seq: from the archive up to that seq, then on in the hot log
   * within what is left of `limit` and `maxBytes`. `gone` is thrown when the archive does not hold the seqs (another
   * epoch, nothing archived); a `StoreTrimmedError` naming the archive's first seq when `fromSeq` is below it.
   * Undefined when the tiers moved during the read (read again).
   *
   * The hot head, the archive's `describe` and the archive's page are read at once (one round trip of latency, not
   * three: a cold catch-up pays them on every page); the page is bounded by the hot first seq `gone` names, and
   * used (or its failure reported) only once the head and `describe` say the archive holds the seqs, as if read
   * after them. A trim between the reads only raises the hot first seq: the page still lies below it.
   */
  async #coldThenHot(
    sessionId: string,
    fromSeq: number,
    limit: number,
    maxBytes: number | undefined,
    gone: StoreTrimmedError,
  ): Promise<StoredPage | undefined> {
    const budget = maxBytes ?? Number.MAX_SAFE_INTEGER;
    const [head, described, read] = await Promise.all([
      this.hot.head(sessionId),
      this.archive.describe(sessionId),
      this.archive.read(sessionId, fromSeq, Math.min(limit, gone.firstSeq - fromSeq), budget).then(
        (page) => ({ page }),
        (error: unknown) => ({ error }),
      ),
    ]);
    const hotFirst = head.firstSeq ?? 0;
    if (fromSeq >= hotFirst || hotFirst < gone.firstSeq) return undefined;
    const cold = await this.#continuing(sessionId, described, head.epoch, hotFirst);
    if (cold === undefined) {
      // A restore may have put the prefix back in the hot log and deleted the archive since the head: read again.
      if (((await this.hot.head(sessionId)).firstSeq ?? 0) < hotFirst) return undefined;
      throw gone;
    }
    if (fromSeq < cold.startSeq) throw new StoreTrimmedError(sessionId, fromSeq, cold.startSeq);
    if ('error' in read) throw read.error;
    const { page } = read;
    if (page.epoch !== cold.epoch || page.firstSeq !== fromSeq || page.bodies.length === 0) return undefined;
    const coldPage: StoredPage = { epoch: head.epoch, firstSeq: fromSeq, bodies: page.bodies, times: page.times };
    const next = fromSeq + page.bodies.length;
    if (page.bodies.length >= limit) return coldPage;
    // A short cold page that stops before the hot log: more follows within the limit (the reader reads on).
    if (page.truncated === true || next < hotFirst) return { ...coldPage, truncated: true };
    const left = budget - bodyBytes(page.bodies);
    if (left <= 0) return { ...coldPage, truncated: true };
    const hot = await this.hot
      .readStoredPage(sessionId, next, limit - page.bodies.length, maxBytes === undefined ? undefined : left)
      .catch(skipTrimmed);
    if (hot instanceof StoreTrimmedError || hot.epoch !== head.epoch || hot.firstSeq !== next) {
      return { ...coldPage, truncated: true };
    }
    // The hot page holds at least one event whatever its size: keep only what fits in the page's bytes.
    let count = 0;
    let used = 0;
    while (count < hot.bodies.length && used + hot.bodies[count]!.byteLength <= left)
      used += hot.bodies[count++]!.byteLength;
    const cut = count < hot.bodies.length;
    return {
      epoch: head.epoch,
      firstSeq: fromSeq,
      bodies: [...page.bodies, ...hot.bodies.slice(0, count)],
      times: [...page.times, ...hot.times.slice(0, count)],
      ...(cut || hot.truncated === true ? { truncated: true } : {}),
    };
  }

  watch(sessionId: string, handlers: StoreWatchHandlers): () => void {
    return this.hot.watch(sessionId, handlers);
  }
  ping(): Promise<void> {
    return this.hot.ping();
  }
  onReconnect(listener: () => void): () => void {
    return this.hot.onReconnect(listener);
  }
  listSessions(prefix?: string): Promise<string[]> {
    return this.hot.listSessions(prefix);
  }

  /**
   * Both tiers: the archive first, so a crash between the two leaves a hot log whose prefix reads GONE (delete
   * again to finish), never an archive of a deleted session that the listing would show as a cold session.
   */
  async deleteSession(sessionId: string): Promise<boolean> {
    const cold = await this.archive.delete(sessionId);
    const hot = await this.hot.deleteSession(sessionId);
    return hot || cold;
  }

  close(): Promise<void> {
    return this.hot.close();
  }
}
