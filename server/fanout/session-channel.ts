import type { SessionEvent } from '../../shared/index.ts';
import { backoffDelay, type BackoffOptions } from '../../shared/backoff.ts';
import { HubErrorCode } from '../../shared/protocol.ts';
import { HubError } from '../hub-error.ts';
import { LiveBatch } from './live-batch.ts';
import type { Logger } from '../logger.ts';
import type { HubMetrics } from '../metrics.ts';
import type { SessionLocation, SubscriberClaim } from './session-location.ts';
import {
  NO_EPOCH,
  type CommittedBatch,
  type EventStore,
  type StoredPage,
  type StoreWatchHandlers,
} from '../store/event-store.ts';
import { addMember, memberCount, membersOf, removeMember, type OneOrSet } from '../one-or-set.ts';
import { readEventPage } from '../store/codec/stored-events.ts';

/** A local consumer of a session's live stream (a subscription). */
export interface ChannelListener {
  /** The next contiguous batch: `batch.firstSeq` is the previous batch's `lastSeq + 1`. */
  onBatch(batch: LiveBatch): void;
  /** The session's epoch changed (its data was lost): positions are void, restart from seq 0. */
  onReset(epoch: string, reason: string): void;
  /**
   * The session had no epoch (`NO_EPOCH`: nothing written yet) and its first commit gave it `epoch`. Nothing was
   * delivered before, so no position is void: the batches that follow continue from seq 0.
   */
  onEpoch(epoch: string): void;
}

export interface ChannelDeps {
  readonly store: EventStore;
  readonly logger: Logger;
  readonly metrics: HubMetrics;
  readonly pageSize: number;
  /**
   * Every batch the channel emits from the store (other nodes' commits, gap fills): keeps the append cache warm.
   * This node's own commits reach the cache from the append pipeline, never through here (`deliverOwn`).
   */
  readonly onCommitted: (sessionId: string, epoch: string, events: readonly SessionEvent[]) => void;
  readonly onReset: (sessionId: string, epoch: string) => void;
}

/** Retry of a resync after a store error: up to 1 s for the first, growing to 10 s while the store keeps failing. */
const RESYNC_RETRY: BackoffOptions = { initialDelayMs: 1000, maxDelayMs: 10_000, factor: 2 };

/** Where a batch came from: the store's notifications and reads, or this node's append pipeline. */
type BatchSource = 'store' | 'own';

/** The settled promise of a channel with nothing queued, and the `ready` of a channel that found its head. */
const SETTLED: Promise<void> = Promise.resolve();

/** Bits of `SessionChannel.#flags`: the head was read once; the first read failed; the channel was closed. */
const INITIALIZED = 1;
const FAILED = 2;
const CLOSED = 4;

function firstSeqOf(batch: CommittedBatch): number {
  return batch.events[0]?.seq ?? 0;
}

/**
 * One store watch for one session on this node, shared by all its local subscribers. Turns the store's
 * notifications (which may skip or repeat) into one contiguous, ordered stream of `LiveBatch`es: duplicates are
 * dropped, gaps are filled from the store, an epoch change becomes `onReset`. Notifications are processed one at a
 * time. State is small: the epoch, the last emitted seq, the listeners. An idle channel (the common case: one
 * listener, nothing queued) holds no `Set`, array, promise or closure of its own: it is its own store watcher.
 */
export class SessionChannel implements StoreWatchHandlers {
  readonly sessionId: string;
  /** Until the head is known (undefined after: `ready` is then `SETTLED`). */
  #ready: Promise<void> | undefined;
  #epoch = '';
  #lastSeq = -1;
  /** `INITIALIZED | FAILED | CLOSED`, each set once and never cleared: one field instead of three (16 bytes less per watched session). */
  #flags = 0;
  /** The tail of the channel's work, undefined when none is queued. */
  #queue: Promise<void> | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  /** Background tasks failed in a row (the backoff's attempt); 0 after one that succeeded. */
  #failures = 0;
  /**
   * Commits of this node in flight or not handed over yet (the next one can start before the previous one's
   * hand-off): while > 0, the store's notices wait in `#held` (about one round trip).
   */
  #ownCommits = 0;
  #held: CommittedBatch[] | undefined;
  #listeners: OneOrSet<ChannelListener>;
  readonly #deps: ChannelDeps;
  readonly #stopWatch: () => void;

  constructor(sessionId: string, deps: ChannelDeps) {
    this.sessionId = sessionId;
    this.#deps = deps;
    this.#stopWatch = deps.store.watch(sessionId, this);
    const ready = this.#enqueue(() => this.#init());
    this.#ready = ready;
    ready.then(
      () => {
        this.#ready = undefined;
      },
      () => {
        this.#flags |= FAILED;
      },
    );
  }

  get #initialized(): boolean {
    return (this.#flags & INITIALIZED) !== 0;
  }

  get #failed(): boolean {
    return (this.#flags & FAILED) !== 0;
  }

  get #closed(): boolean {
    return (this.#flags & CLOSED) !== 0;
  }

  /** Resolves once the head is known; rejects when the store could not be reached. */
  get ready(): Promise<void> {
    return this.#ready ?? SETTLED;
  }

  /** Store watcher: a committed batch of the session (any node's). */
  onCommitted(batch: CommittedBatch): void {
    if (this.#ownCommits > 0) (this.#held ??= []).push(batch);
    else this.#background(() => this.#onCommitted(batch, 'store'), 'notification');
  }

  /** Store watcher: notifications may have been missed. */
  onResync(): void {
    this.#requestResync('store resync');
  }

  /** Epoch of the session as last seen by this channel. */
  get epoch(): string {
    return this.#epoch;
  }

  /** Seq of the last event emitted (or the head when the channel started). */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  get failed(): boolean {
    return this.#failed;
  }

  get listenerCount(): number {
    return memberCount(this.#listeners);
  }

  add(listener: ChannelListener): void {
    this.#listeners = addMember(this.#listeners, listener);
  }

  remove(listener: ChannelListener): void {
    this.#listeners = removeMember(this.#listeners, listener);
  }

  /** This node's append pipeline sends a commit of the session to the store: hold the store's notices back. */
  ownCommitStarted(): void {
    this.#ownCommits++;
  }

  /**
   * The commit ended (after its acks went out): `batch` is what it committed (already applied to the append cache),
   * undefined when nothing was. It and the notices held back meanwhile are processed in seq order: the store's
   * echo of `batch` is then dropped, and another node's batch before it fills the gap up to it.
   */
  ownCommitFinished(batch: CommittedBatch | undefined): void {
    this.#ownCommits = Math.max(0, this.#ownCommits - 1); // a channel created mid-commit saw no `started`
    // With a later own commit still in flight, only the notices up to this batch go now (the rest may be its echo).
    const lastSeq = batch?.events[batch.events.length - 1]?.seq;
    const goesNow = (notice: CommittedBatch): boolean =>
      this.#ownCommits === 0 ||
      (batch !== undefined && lastSeq !== undefined && notice.epoch === batch.epoch && firstSeqOf(notice) <= lastSeq);
    const waiting = this.#held ?? [];
    const held = waiting.filter(goesNow);
    const later = waiting.filter((notice) => !goesNow(notice));
    this.#held = later.length === 0 ? undefined : later;
    const ordered: { readonly batch: CommittedBatch; readonly source: BatchSource }[] = held.map((notice) => ({
      batch: notice,
      source: 'store',
    }));
    if (batch !== undefined) {
      const firstSeq = firstSeqOf(batch);
      const after = held.findIndex((notice) => notice.epoch === batch.epoch && firstSeqOf(notice) > firstSeq);
      ordered.splice(after === -1 ? ordered.length : after, 0, { batch, source: 'own' });
    }
    for (const item of ordered) {
      this.#background(() => this.#onCommitted(item.batch, item.source), `${item.source} batch`);
    }
  }

  /**
   * Where the session is for a subscriber that claims `claim`, given to `answer` synchronously (nothing can change
   * the channel's epoch or head between the answer's computation and `answer`): locate resolves with what `answer`
   * returns, or rejects with what it throws. Rejects with SEQ_OUT_OF_RANGE (without calling `answer`) when the
   * claim's `fromSeq` lies beyond the store's head + 1 in the channel's epoch.
   *
   * Never answers with a stale epoch: a claimed epoch the channel has not seen makes it read the store's head,
   * and resync first when that holds another epoch than the channel's. `headSeq` is never below the store's head
   * when `fromSeq` is ahead of the channel (the head is read then): a subscriber that moved from a node that was
   * further ahead is not told that the log is shorter than what it holds.
   */
  async locate<T>(claim: SubscriberClaim, answer: (location: SessionLocation) => T): Promise<T> {
    // A client told that the session had no epoch yet claims none: its copy holds no events at all.
    const claimed = claim.epoch === NO_EPOCH ? undefined : claim.epoch;
    if (claimed !== undefined && claimed !== this.#epoch) {
      // The client holds an epoch this channel does not: either the client is behind (it is reset), or the channel
      // is (the epoch changed without a notice reaching this node).
      const head = await this.#deps.store.head(this.sessionId);
      if (head.epoch !== this.#epoch) {
        await this.#enqueue(() => this.#resync('a subscriber holds an epoch this node has not seen'));
      }
    }
    let storeHeadSeq = -1;
    if (claim.fromSeq > this.#lastSeq + 1) {
      const claimsEpoch = claimed === undefined || claimed === this.#epoch;
      const head = await this.#deps.store.head(this.sessionId);
      if (claimsEpoch && claim.fromSeq > head.headSeq + 1) {
        throw new HubError(
          HubErrorCode.SEQ_OUT_OF_RANGE,
          `fromSeq ${claim.fromSeq} lies beyond the head + 1 (${head.headSeq + 1})`,
          { headSeq: head.headSeq },
        );
      }
      if (head.epoch === this.#epoch) storeHeadSeq = head.headSeq;
    }
    const voidedEpoch = claimed !== undefined && claimed !== this.#epoch ? claimed : undefined;
    return answer({ epoch: this.#epoch, headSeq: Math.max(this.#lastSeq, storeHeadSeq), voidedEpoch });
  }

  /**
   * A subscriber's catch-up read: the stored page from `fromSeq` of at most `limit` events. A page of another epoch than
   * the channel's means the channel is behind (the store lost or replaced the session without a notice reaching
   * it): it re-checks the head, which resets its subscribers.
   */
  async readCatchUp(fromSeq: number, limit: number): Promise<StoredPage> {
    const page = await this.#deps.store.readStoredPage(this.sessionId, fromSeq, limit);
    if ((page.epoch ?? NO_EPOCH) !== this.#epoch) this.#requestResync('catch-up read another epoch');
    return page;
  }

  /**
   * A subscriber's catch-up read from `fromSeq` came back empty and its live buffer does not cover `fromSeq`. When
   * the channel emitted `fromSeq`, the store holds fewer events than were delivered (it lost them, or holds another
   * epoch): the channel re-checks the head.
   */
  storeEndedAt(fromSeq: number): void {
    if (fromSeq <= this.#lastSeq) this.#requestResync('catch-up found nothing where the live stream has events');
  }

  /**
   * A subscriber caught up from the store to `lastSeq` and went live. Beyond the channel's last seq, the channel
   * missed the store's notices: it re-reads the store from its last seq.
   */
  subscriberCaughtUp(lastSeq: number): void {
    if (lastSeq > this.#lastSeq) this.#requestResync('a subscriber read past the live stream');
  }

  close(): void {
    this.#flags |= CLOSED;
    this.#held = undefined;
    clearTimeout(this.#retryTimer);
    this.#stopWatch();
  }

  /** Re-read the store from the last seq (and re-check the epoch), in order with the channel's other work. */
  #requestResync(reason: string): void {
    this.#background(() => this.#resync(reason), 'resync');
  }

  #enqueue(task: () => Promise<void>): Promise<void> {
    const run = (this.#queue ?? SETTLED).then(task);
    const idle = (): void => {
      if (this.#queue === tail) this.#queue = undefined;
    };
    const tail: Promise<void> = run.then(idle, idle);
    this.#queue = tail;
    return run;
  }

  #background(task: () => Promise<void>, what: string): void {
    this.#enqueue(task).then(
      () => {
        this.#failures = 0;
      },
      (error: unknown) => {
        this.#deps.logger.warn({ err: error, sessionId: this.sessionId }, `session channel ${what} failed`);
        this.#scheduleResync();
      },
    );
  }

  #scheduleResync(): void {
    if (this.#closed || this.#retryTimer !== undefined) return;
    this.#retryTimer = setTimeout(
      () => {
        this.#retryTimer = undefined;
        if (!this.#closed) this.#requestResync('retry after store error');
      },
      backoffDelay(this.#failures++, RESYNC_RETRY),
    );
    this.#retryTimer.unref();
  }

  async #init(): Promise<void> {
    const head = await this.#deps.store.head(this.sessionId);
    this.#epoch = head.epoch;
    this.#lastSeq = head.headSeq;
    this.#flags |= INITIALIZED;
  }

  async #onCommitted(batch: CommittedBatch, source: BatchSource = 'store'): Promise<void> {
    if (this.#closed || !this.#initialized) return;
    if (batch.epoch !== this.#epoch && !this.#adoptFirstEpoch(batch.epoch)) {
      await this.#resync('epoch changed');
      return;
    }
    const firstNew = batch.events.findIndex((event) => event.seq > this.#lastSeq);
    if (firstNew === -1) return;
    const fresh = batch.events.slice(firstNew);
    if (fresh[0]!.seq > this.#lastSeq + 1) {
      this.#deps.metrics.gapFills.inc();
      await this.#readForward(fresh[0]!.seq - 1);
      if (batch.epoch !== this.#epoch) return; // the gap fill found a new epoch (and reset)
    }
    const rest = fresh.filter((event) => event.seq > this.#lastSeq);
    if (rest.length === 0) return;
    if (rest[0]!.seq === this.#lastSeq + 1) this.#emit(rest, source);
    else await this.#resync('store could not fill a gap');
  }

  async #resync(reason: string): Promise<void> {
    if (this.#closed) return;
    if (await this.#adoptHead(reason)) return;
    await this.#readForward(undefined);
  }

  /**
   * Read the head; on a new epoch (or the first time) take it and reset the listeners. True when it did. Also
   * when the store, in the same epoch, holds fewer events than this node delivered (a failover to a replica that
   * missed the last writes, a crash before fsync): the listeners hold events the log no longer has, and new ones
   * will reuse those seqs, so they are reset (same epoch) and rebuild from seq 0 rather than merge two histories.
   */
  async #adoptHead(reason: string): Promise<boolean> {
    const head = await this.#deps.store.head(this.sessionId);
    if (this.#closed) return true;
    if (this.#initialized && (head.epoch === this.#epoch || this.#adoptFirstEpoch(head.epoch))) {
      if (head.headSeq >= this.#lastSeq) return false;
      this.#lastSeq = head.headSeq;
      this.#reset(`the store lost events after seq ${head.headSeq} that this node had delivered (same epoch)`);
      return true;
    }
    const changed = this.#initialized;
    this.#epoch = head.epoch;
    this.#lastSeq = head.headSeq;
    this.#flags |= INITIALIZED;
    if (changed) this.#reset(reason);
    return true;
  }

  /** Emit stored events after `lastSeq`, up to `untilSeq` (or the end of the log), never from another epoch. */
  async #readForward(untilSeq: number | undefined): Promise<void> {
    const { store, pageSize } = this.#deps;
    while (!this.#closed && (untilSeq === undefined || this.#lastSeq < untilSeq)) {
      const page = await readEventPage(store, this.sessionId, this.#lastSeq + 1, pageSize);
      if (this.#closed) return;
      const epoch = page.epoch ?? NO_EPOCH;
      if (epoch !== this.#epoch && !this.#adoptFirstEpoch(epoch)) {
        await this.#adoptHead('the store holds another epoch');
        return;
      }
      const { events } = page;
      if (events.length === 0) return;
      if (events[0]!.seq !== this.#lastSeq + 1) {
        throw new Error(`store read from ${this.#lastSeq + 1} started at ${events[0]!.seq}`);
      }
      this.#emit(events);
      if (events.length < pageSize) return;
    }
  }

  /**
   * Take `epoch` without a reset when it is the first epoch of a session this channel saw without one and before
   * delivering anything (its first commit). True when it did.
   */
  #adoptFirstEpoch(epoch: string): boolean {
    if (this.#epoch !== NO_EPOCH || this.#lastSeq !== -1 || epoch === NO_EPOCH) return false;
    this.#epoch = epoch;
    for (const listener of membersOf(this.#listeners)) {
      try {
        listener.onEpoch(epoch);
      } catch (error) {
        this.#deps.logger.error({ err: error, sessionId: this.sessionId }, 'subscriber failed on its first epoch');
      }
    }
    return true;
  }

  #emit(events: readonly SessionEvent[], source: BatchSource = 'store'): void {
    this.#lastSeq = events[events.length - 1]!.seq;
    if (source === 'store') this.#deps.onCommitted(this.sessionId, this.#epoch, events);
    const batch = new LiveBatch(this.sessionId, events);
    for (const listener of membersOf(this.#listeners)) {
      try {
        listener.onBatch(batch);
      } catch (error) {
        this.#deps.logger.error({ err: error, sessionId: this.sessionId }, 'subscriber failed on a batch');
      }
    }
  }

  #reset(reason: string): void {
    this.#deps.logger.warn({ sessionId: this.sessionId, epoch: this.#epoch, reason }, 'session subscribers reset');
    this.#deps.onReset(this.sessionId, this.#epoch);
    for (const listener of membersOf(this.#listeners)) {
      try {
        listener.onReset(this.#epoch, reason);
      } catch (error) {
        this.#deps.logger.error({ err: error, sessionId: this.sessionId }, 'subscriber failed on reset');
      }
    }
  }
}
