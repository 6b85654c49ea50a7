import type { SessionEvent } from '../../shared/index.ts';
import { backoffDelay, type BackoffOptions } from '../../shared/backoff.ts';
import { HubErrorCode } from '../../shared/protocol.ts';
import { HubError } from '../hub-error.ts';
import { LiveBatch } from './live-batch.ts';
import type { SessionLocation, SubscriberClaim } from './session-location.ts';
import { NO_EPOCH, type CommittedBatch, type StoredPage, type StoreWatchHandlers } from '../store/event-store.ts';
import { skipTrimmed, StoreTrimmedError } from '../store/trimmed-error.ts';
import { decodeStoredPage } from '../store/codec/stored-events.ts';
import { largestBody, StoreReadSizer } from '../limits/store-reads.ts';
import { pageUpTo, releaseHeld, type BatchSource } from './own-commits.ts';
import { addMember, memberCount, membersOf, removeMember, type OneOrSet } from '../one-or-set.ts';

import type { ChannelDeps, ChannelListener } from './channel-types.ts';

export type { ChannelDeps, ChannelListener } from './channel-types.ts';

/** Retry of a resync after a store error: up to 1 s for the first, growing to 10 s while the store keeps failing. */
const RESYNC_RETRY: BackoffOptions = { initialDelayMs: 1000, maxDelayMs: 10_000, factor: 2 };

/** The settled promise of a channel with nothing queued, and the `ready` of a channel that found its head. */
const SETTLED: Promise<void> = Promise.resolve();

/** Bits of `SessionChannel.#flags`: the head was read once; the first read failed; the channel was closed. */
const INITIALIZED = 1;
const FAILED = 2;
const CLOSED = 4;

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
  /** Own commits started since the channel was made: a read that saw it change may hold an unacked commit. */
  #ownStarts = 0;
  /** A resync that could not read forward while an own commit was in flight: it runs once they are all done. */
  #resyncAfterOwn = false;
  /** The first head read waits for the own commits it may hold to be acked (see `#init`). */
  #initWait: { remaining: number; readonly done: () => void } | undefined;
  #held: CommittedBatch[] | undefined;
  #listeners: OneOrSet<ChannelListener>;
  readonly #deps: ChannelDeps;
  readonly #stopWatch: () => void;

  /** `ownCommitsInFlight`: this node's commits of the session started before the channel was made. */
  constructor(sessionId: string, deps: ChannelDeps, ownCommitsInFlight = 0) {
    this.sessionId = sessionId;
    this.#deps = deps;
    this.#ownCommits = ownCommitsInFlight;
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
    this.#ownStarts++;
  }

  /**
   * The commit ended (after its acks went out): `batch` is what it committed (already applied to the append cache),
   * undefined when nothing was. It and the notices held back meanwhile are processed in seq order: the store's
   * echo of `batch` is then dropped, and another node's batch before it fills the gap up to it.
   */
  ownCommitFinished(batch: CommittedBatch | undefined): void {
    this.#ownCommits = Math.max(0, this.#ownCommits - 1);
    if (this.#initWait !== undefined && --this.#initWait.remaining <= 0) this.#endInitWait();
    const { now, later } = releaseHeld(this.#held ?? [], batch, this.#ownCommits);
    this.#held = later;
    for (const item of now) {
      this.#background(() => this.#onCommitted(item.batch, item.source), `${item.source} batch`);
    }
    if (this.#ownCommits === 0 && this.#resyncAfterOwn) {
      this.#resyncAfterOwn = false;
      this.#requestResync('a resync waited for this node’s commits');
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
    const starts = this.#ownStarts;
    const page = await this.#deps.store.readStoredPage(this.sessionId, fromSeq, limit);
    if ((page.epoch ?? NO_EPOCH) !== this.#epoch) {
      this.#requestResync('catch-up read another epoch');
      return page;
    }
    // While this node has a commit in flight, the store may hold it before its writer's ack is sent: the page stops
    // at what the channel emitted (acked, or other nodes'); the rest reaches the subscriber live, after the ack.
    if (this.#ownCommits === 0 && this.#ownStarts === starts) return page;
    return pageUpTo(page, this.#lastSeq);
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
    this.#endInitWait();
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

  /**
   * Read the head. When this node has commits of the session in flight (the channel was made meanwhile, or they
   * started during the read), the head may hold one whose writer has no ack yet: the channel is ready (and serves
   * catch-up up to the head) only once they are done, so that no subscriber gets those events before the ack.
   * This node commits a session one group at a time, so the commits in flight finish in order, within a round trip.
   */
  async #init(): Promise<void> {
    const head = await this.#deps.store.head(this.sessionId);
    this.#epoch = head.epoch;
    this.#lastSeq = head.headSeq;
    this.#flags |= INITIALIZED;
    if (this.#ownCommits === 0 || this.#closed) return;
    await new Promise<void>((done) => {
      this.#initWait = { remaining: this.#ownCommits, done };
    });
  }

  #endInitWait(): void {
    const wait = this.#initWait;
    this.#initWait = undefined;
    wait?.done();
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
   * A read to the end of the log while this node has a commit in flight (or started one meanwhile) may hold that
   * commit before its writer's ack: nothing of it is emitted, and the resync runs again once the commits are done
   * (their batches and the notices held meanwhile come first). True when it deferred.
   */
  #deferWhileOwnCommits(starts: number): boolean {
    if (this.#ownCommits === 0 && this.#ownStarts === starts) return false;
    if (this.#ownCommits === 0) this.#requestResync('an own commit ran during a resync');
    else this.#resyncAfterOwn = true;
    return true;
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

  /**
   * Emit stored events after `lastSeq`, up to `untilSeq` (or the end of the log), never from another epoch. Reads
   * stop at `untilSeq`: what follows it is the batch being filled up to (it may be this node's own commit, which
   * reaches the subscribers and the append cache from the pipeline alone). Each read is bounded by bytes.
   */
  async #readForward(untilSeq: number | undefined): Promise<void> {
    const { store } = this.#deps;
    const sizer = new StoreReadSizer(this.#deps.reads);
    while (!this.#closed && (untilSeq === undefined || this.#lastSeq < untilSeq)) {
      const fromSeq = this.#lastSeq + 1;
      const limit = untilSeq === undefined ? sizer.count : Math.min(sizer.count, untilSeq - this.#lastSeq);
      const starts = this.#ownStarts;
      if (untilSeq === undefined && this.#deferWhileOwnCommits(starts)) return;
      // Seqs trimmed before this node read them: go on from the first kept one (a subscriber that needs them ends
      // with GONE from its own catch-up, never a silent gap).
      const page = await store.readStoredPage(this.sessionId, fromSeq, limit).catch(skipTrimmed);
      if (page instanceof StoreTrimmedError) {
        this.#deps.logger.warn({ sessionId: this.sessionId, fromSeq, firstSeq: page.firstSeq }, 'skips trimmed seqs');
        this.#lastSeq = Math.min(page.firstSeq - 1, untilSeq ?? Infinity);
        continue;
      }
      if (this.#closed) return;
      if (untilSeq === undefined && this.#deferWhileOwnCommits(starts)) return;
      const epoch = page.epoch ?? NO_EPOCH;
      if (epoch !== this.#epoch && !this.#adoptFirstEpoch(epoch)) {
        await this.#adoptHead('the store holds another epoch');
        return;
      }
      sizer.observe(largestBody(page.bodies));
      const { events } = decodeStoredPage(this.sessionId, page);
      if (events.length === 0) return;
      if (events[0]!.seq !== fromSeq) throw new Error(`store read from ${fromSeq} started at ${events[0]!.seq}`);
      this.#emit(events);
      if (events.length < limit) return;
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
