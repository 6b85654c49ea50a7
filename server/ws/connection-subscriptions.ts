import { HubErrorCode, type ServerMessage, type SubscribeRequest } from '../../shared/protocol.ts';
import { errorMessage, HubError } from '../hub-error.ts';
import type { Logger } from '../logger.ts';
import type { HubMetrics } from '../metrics.ts';
import type { ChannelRegistry } from '../fanout/channel-registry.ts';
import type { SessionChannel } from '../fanout/session-channel.ts';
import type { SubscriptionBudget } from '../limits/subscription-budget.ts';
import type { StoreReadLimits } from '../limits/store-reads.ts';
import type { PresenceTracker } from '../presence/presence-tracker.ts';
import {
  Subscription,
  unsubscribedMeanwhile,
  type SubscriberSink,
  type SubscriptionDeps,
} from '../fanout/subscription.ts';
import { EMPTY_STATE, type SnapshotSource } from '../snapshot/snapshot-source.ts';
import type { MetadataStore, SessionMetadata } from '../store/metadata-store.ts';
import { EMPTY_METADATA, isNewerMetadata } from '../../shared/session-metadata.ts';
import { NO_EPOCH } from '../store/event-store.ts';
import { refuseExpired, type RetentionStore } from '../store/retention-store.ts';

/** What every connection's subscriptions share: the node's channels, budgets and settings. */
export interface SubscriptionsContext {
  readonly channels: ChannelRegistry;
  readonly metrics: HubMetrics;
  /** How many events a catch-up read asks for (see `StoreReadSizer`). */
  readonly reads: StoreReadLimits;
  readonly maxFrameBytes: number;
  readonly maxBufferedLiveEvents: number;
  readonly maxSubscriptions: number;
  /** The node-wide budget (`maxSubscriptionsPerNode`), shared by every connection. */
  readonly nodeSubscriptions: SubscriptionBudget;
  readonly presence: PresenceTracker;
  /** Where `subscribe` with `snapshot: true` gets its snapshot (absent: such a subscribe starts at its `fromSeq`). */
  readonly snapshots?: SnapshotSource;
  /** Where `subscribe` with `metadata: true` reads the session's metadata (absent: no `metadata` frames). */
  readonly metadata?: MetadataStore;
  /** Tells an expired session (SESSION_EXPIRED) from one never written; absent: no session is ever expired. */
  readonly retention?: RetentionStore;
}

/** The connection that holds the subscriptions: where they write, what they log with, and who it is. */
export interface SubscriptionsOwner extends SubscriberSink {
  /** Sends `message` only if its frame is at most `maxBytes` (true; also when the connection is closing), else false. */
  sendWithin(message: ServerMessage, maxBytes: number): boolean;
  readonly logger: Logger;
  /** Who the connection is, for presence (`anonymous` on an open hub). */
  readonly subject: string;
}

/**
 * One subscription of a connection. It is also the subscription's `SubscriptionDeps` (read through to the shared
 * context and the connection), so that an idle subscription costs this object and the `Subscription`, with no
 * per-subscription copy of the dependencies and no closure.
 */
class Entry implements SubscriptionDeps {
  readonly subscription: Subscription;
  channel: SessionChannel | undefined;
  /** Presence: this subscription's watcher id, and the unfollow of a subscription that follows presence. */
  watcherId: string | undefined;
  unfollow: (() => void) | undefined;
  /** `metadata: true`: the unfollow of its metadata changes, and the last metadata sent. */
  unfollowMetadata: (() => void) | undefined;
  metadataSent: SessionMetadata | undefined;
  readonly #owner: ConnectionSubscriptions;

  constructor(owner: ConnectionSubscriptions, sessionId: string, fromSeq: number) {
    this.#owner = owner;
    this.subscription = new Subscription({ sessionId, fromSeq }, this);
  }

  get sink(): SubscriberSink {
    return this.#owner.connection;
  }

  get logger(): Logger {
    return this.#owner.connection.logger;
  }

  get metrics(): HubMetrics {
    return this.#owner.context.metrics;
  }

  get reads(): StoreReadLimits {
    return this.#owner.context.reads;
  }

  get maxFrameBytes(): number {
    return this.#owner.context.maxFrameBytes;
  }

  get maxBufferedLiveEvents(): number {
    return this.#owner.context.maxBufferedLiveEvents;
  }

  /** The subscription ended itself on an error: drop it and tell the client. */
  onFailed(error: HubError): void {
    this.#owner.failed(this, error);
  }
}

/** The subscriptions of one connection (at most one per session). */
export class ConnectionSubscriptions {
  readonly context: SubscriptionsContext;
  readonly connection: SubscriptionsOwner;
  /**
   * The subscriptions by session: a connection holds one (a UI watching an agent), none (a writer), rarely more.
   * The first is kept in `#only`; the map is made for the second one and holds all of them from then on.
   */
  #only: Entry | undefined;
  #entries: Map<string, Entry> | undefined;

  constructor(context: SubscriptionsContext, connection: SubscriptionsOwner) {
    this.context = context;
    this.connection = connection;
  }

  get size(): number {
    return this.#entries?.size ?? (this.#only === undefined ? 0 : 1);
  }

  /** The sessions subscribed to (a snapshot). */
  get sessionIds(): string[] {
    if (this.#entries !== undefined) return [...this.#entries.keys()];
    return this.#only === undefined ? [] : [this.#only.subscription.sessionId];
  }

  #get(sessionId: string): Entry | undefined {
    if (this.#entries !== undefined) return this.#entries.get(sessionId);
    return this.#only?.subscription.sessionId === sessionId ? this.#only : undefined;
  }

  #add(sessionId: string, entry: Entry): void {
    if (this.#entries !== undefined) this.#entries.set(sessionId, entry);
    else if (this.#only === undefined) this.#only = entry;
    else {
      this.#entries = new Map([
        [this.#only.subscription.sessionId, this.#only],
        [sessionId, entry],
      ]);
      this.#only = undefined;
    }
  }

  #delete(sessionId: string): void {
    if (this.#entries !== undefined) this.#entries.delete(sessionId);
    else if (this.#only?.subscription.sessionId === sessionId) this.#only = undefined;
  }

  /**
   * Subscribe (replies `subscribed` through the sink) or throw a HubError (nothing kept). The subscription is
   * registered synchronously; `ready` (the caller's authorization) is awaited before the store is touched.
   */
  async subscribe(request: SubscribeRequest, ready: Promise<void> = Promise.resolve()): Promise<void> {
    ready.catch(() => undefined); // surfaced below
    const { sessionId } = request;
    const { context } = this;
    if (this.#get(sessionId) !== undefined) {
      throw new HubError(HubErrorCode.ALREADY_SUBSCRIBED, `already subscribed to ${sessionId}`);
    }
    if (this.size >= context.maxSubscriptions) {
      throw new HubError(
        HubErrorCode.TOO_MANY_SUBSCRIPTIONS,
        `a connection may hold at most ${context.maxSubscriptions} subscriptions`,
        { limit: context.maxSubscriptions },
      );
    }
    context.nodeSubscriptions.take();
    const fromSeq = request.fromSeq ?? 0;
    const entry = new Entry(this, sessionId, fromSeq);
    const { subscription } = entry;
    this.#add(sessionId, entry);
    context.metrics.subscriptions.inc();
    try {
      await ready;
      if (this.#get(sessionId) !== entry) throw unsubscribedMeanwhile(sessionId);
      const start = await this.#snapshotStart(request, entry);
      const channel = await context.channels.acquire(sessionId, subscription);
      entry.channel = channel;
      if (this.#get(sessionId) !== entry) {
        context.channels.release(channel, subscription);
        throw unsubscribedMeanwhile(sessionId);
      }
      // A session without an epoch: never written, or expired (then SESSION_EXPIRED, nothing sent before it).
      if (channel.epoch === NO_EPOCH) await this.#refuseExpired(sessionId);
      await subscription.start(channel, { requestId: request.id, sessionId, ...start });
      if (this.#get(sessionId) === entry) this.#watch(sessionId, entry, request);
    } catch (error) {
      if (this.#get(sessionId) === entry) this.#remove(sessionId, entry);
      throw error;
    }
  }

  /**
   * Where the subscription starts. With `snapshot: true`: sends the `snapshot` frame (before `subscribed`, which the
   * subscription sends) and starts after it, unless the client's own copy is of the snapshot's epoch and at or past
   * it (then the frame says so with `state: null`). The catch-up reads from there under the snapshot's epoch, so
   * a session rewritten meanwhile gets `reset`, as every stale position does.
   */
  async #snapshotStart(
    request: SubscribeRequest,
    entry: Entry,
  ): Promise<{ fromSeq: number; epoch: string | undefined }> {
    const fromSeq = request.fromSeq ?? 0;
    const own = { fromSeq, epoch: request.epoch };
    const { snapshots } = this.context;
    if (request.snapshot !== true || snapshots === undefined) return own;
    const { sessionId } = request;
    const served = await snapshots.read(sessionId);
    if (served.epoch === undefined) await this.#refuseExpired(sessionId);
    if (this.#get(sessionId) !== entry) throw unsubscribedMeanwhile(sessionId);
    const epoch = served.epoch ?? '';
    if (request.epoch !== undefined && request.epoch === served.epoch && served.seq < fromSeq) {
      this.connection.send({ type: 'snapshot', sessionId, epoch, seq: fromSeq - 1, state: null });
      return own;
    }
    const frame = { type: 'snapshot', sessionId, epoch, seq: served.seq, state: served.state } as const;
    if (this.connection.sendWithin(frame, this.context.maxFrameBytes)) {
      return { fromSeq: served.seq + 1, epoch: served.epoch };
    }
    // Above the frame limit: never sent. The client starts on the empty projection and catches up from seq 0.
    this.context.metrics.snapshotReads.inc({ result: 'too_large' });
    this.connection.send({ type: 'snapshot', sessionId, epoch, seq: -1, state: EMPTY_STATE, declined: 'TOO_LARGE' });
    return { fromSeq: 0, epoch: served.epoch };
  }

  /** Throws SESSION_EXPIRED when retention expired the session. */
  async #refuseExpired(sessionId: string): Promise<void> {
    if (this.context.retention !== undefined) await refuseExpired(this.context.retention, sessionId);
  }

  /** End a subscription; throws NOT_SUBSCRIBED when there is none. */
  unsubscribe(sessionId: string): void {
    const entry = this.#get(sessionId);
    if (entry === undefined) throw new HubError(HubErrorCode.NOT_SUBSCRIBED, `not subscribed to ${sessionId}`);
    this.#remove(sessionId, entry);
  }

  /** A subscription ended itself on an error (see `Entry.onFailed`): drop it and tell the client. */
  failed(entry: Entry, error: HubError): void {
    const { sessionId } = entry.subscription;
    if (this.#get(sessionId) !== entry) return;
    this.#remove(sessionId, entry);
    this.context.metrics.errors.inc({ code: error.code });
    this.connection.send(errorMessage(error, undefined, sessionId));
  }

  closeAll(): void {
    if (this.#only !== undefined) this.#remove(this.#only.subscription.sessionId, this.#only);
    if (this.#entries === undefined) return;
    for (const [sessionId, entry] of this.#entries) this.#remove(sessionId, entry);
  }

  /** The subscription is a watcher of the session; with `presence: true` it also hears who else watches. */
  #watch(sessionId: string, entry: Entry, request: SubscribeRequest): void {
    const { presence } = this.context;
    const sink = this.connection;
    entry.watcherId = presence.join(sessionId, sink.subject, request.label);
    if (request.presence === true) {
      entry.unfollow = presence.follow(sessionId, (update) => {
        if (!sink.closing) sink.send({ type: 'presence', sessionId, ...update });
      });
    }
    if (request.metadata === true) this.#followMetadata(sessionId, entry);
  }

  /** Sends the session's metadata, then each change, newer ones only (`isNewerMetadata`: a change may race the read). */
  #followMetadata(sessionId: string, entry: Entry): void {
    const { metadata, channels } = this.context;
    if (metadata === undefined) return;
    const sink = this.connection;
    const send = (current: SessionMetadata | undefined): void => {
      if (current === undefined || !isNewerMetadata(current, entry.metadataSent) || sink.closing) return;
      if (this.#get(sessionId) !== entry) return;
      entry.metadataSent = current;
      sink.send({ type: 'metadata', sessionId, metadata: current });
    };
    entry.unfollowMetadata = channels.followMetadata(sessionId, send);
    metadata.get(sessionId).then(
      (current) => send(current ?? EMPTY_METADATA),
      (error: unknown) => sink.logger.warn({ err: error, sessionId }, 'could not read the session metadata'),
    );
  }

  #remove(sessionId: string, entry: Entry): void {
    const { context } = this;
    entry.unfollow?.();
    entry.unfollowMetadata?.();
    if (entry.watcherId !== undefined) context.presence.leave(sessionId, entry.watcherId);
    this.#delete(sessionId);
    context.nodeSubscriptions.give();
    context.metrics.subscriptions.dec();
    entry.subscription.close();
    if (entry.channel !== undefined) context.channels.release(entry.channel, entry.subscription);
  }
}
