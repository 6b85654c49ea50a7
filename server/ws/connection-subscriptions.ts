import { HubErrorCode, type SubscribeRequest } from '../../shared/protocol.ts';
import { errorMessage, HubError } from '../hub-error.ts';
import type { Logger } from '../logger.ts';
import type { HubMetrics } from '../metrics.ts';
import type { ChannelRegistry, SessionChannel } from '../fanout/session-channel.ts';
import type { EventStore } from '../store/event-store.ts';
import type { SubscriptionBudget } from '../limits/subscription-budget.ts';
import type { PresenceTracker } from '../presence/presence-tracker.ts';
import { Subscription, unsubscribedMeanwhile, type SubscriberSink } from '../fanout/subscription.ts';

interface Entry {
  readonly subscription: Subscription;
  channel: SessionChannel | undefined;
  /** Presence: this subscription's watcher id, and the unfollow of a subscription that follows presence. */
  watcherId?: string | undefined;
  unfollow?: (() => void) | undefined;
}

export interface ConnectionSubscriptionsDeps {
  readonly store: EventStore;
  readonly channels: ChannelRegistry;
  readonly sink: SubscriberSink;
  readonly logger: Logger;
  readonly metrics: HubMetrics;
  readonly pageSize: number;
  readonly maxFrameBytes: number;
  readonly maxBufferedLiveEvents: number;
  readonly maxSubscriptions: number;
  /** The node-wide budget (`maxSubscriptionsPerNode`), shared by every connection. */
  readonly nodeSubscriptions: SubscriptionBudget;
  readonly presence: PresenceTracker;
  /** Who the connection is, for presence (`anonymous` on an open hub). */
  readonly subject: () => string;
}

/** The subscriptions of one connection (at most one per session). */
export class ConnectionSubscriptions {
  readonly #entries = new Map<string, Entry>();
  readonly #deps: ConnectionSubscriptionsDeps;

  constructor(deps: ConnectionSubscriptionsDeps) {
    this.#deps = deps;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The sessions subscribed to (a snapshot). */
  get sessionIds(): string[] {
    return [...this.#entries.keys()];
  }

  /**
   * Subscribe (replies `subscribed` through the sink) or throw a HubError (nothing kept). The subscription is
   * registered synchronously; `ready` (the caller's authorization) is awaited before the store is touched.
   */
  async subscribe(request: SubscribeRequest, ready: Promise<void> = Promise.resolve()): Promise<void> {
    ready.catch(() => undefined); // surfaced below
    const { sessionId } = request;
    if (this.#entries.has(sessionId)) {
      throw new HubError(HubErrorCode.ALREADY_SUBSCRIBED, `already subscribed to ${sessionId}`);
    }
    if (this.#entries.size >= this.#deps.maxSubscriptions) {
      throw new HubError(
        HubErrorCode.TOO_MANY_SUBSCRIPTIONS,
        `a connection may hold at most ${this.#deps.maxSubscriptions} subscriptions`,
        { limit: this.#deps.maxSubscriptions },
      );
    }
    this.#deps.nodeSubscriptions.take();
    const fromSeq = request.fromSeq ?? 0;
    const subscription = new Subscription(
      { sessionId, fromSeq },
      { ...this.#deps, onFailed: (error) => this.#failed(entry, error) },
    );
    const entry: Entry = { subscription, channel: undefined };
    this.#entries.set(sessionId, entry);
    this.#deps.metrics.subscriptions.inc();
    try {
      await ready;
      if (this.#entries.get(sessionId) !== entry) throw unsubscribedMeanwhile(sessionId);
      const channel = await this.#deps.channels.acquire(sessionId, subscription);
      entry.channel = channel;
      if (this.#entries.get(sessionId) !== entry) {
        this.#deps.channels.release(channel, subscription);
        throw unsubscribedMeanwhile(sessionId);
      }
      await subscription.start(channel, { requestId: request.id, sessionId, fromSeq, epoch: request.epoch });
      if (this.#entries.get(sessionId) === entry) this.#watch(sessionId, entry, request);
    } catch (error) {
      if (this.#entries.get(sessionId) === entry) this.#remove(sessionId, entry);
      throw error;
    }
  }

  /** End a subscription; throws NOT_SUBSCRIBED when there is none. */
  unsubscribe(sessionId: string): void {
    const entry = this.#entries.get(sessionId);
    if (entry === undefined) throw new HubError(HubErrorCode.NOT_SUBSCRIBED, `not subscribed to ${sessionId}`);
    this.#remove(sessionId, entry);
  }

  /** A subscription ended itself on an error: drop it and tell the client (`error` with `sessionId`). */
  #failed(entry: Entry, error: HubError): void {
    const { sessionId } = entry.subscription;
    if (this.#entries.get(sessionId) !== entry) return;
    this.#remove(sessionId, entry);
    this.#deps.metrics.errors.inc({ code: error.code });
    this.#deps.sink.send(errorMessage(error, undefined, sessionId));
  }

  closeAll(): void {
    for (const [sessionId, entry] of this.#entries) this.#remove(sessionId, entry);
  }

  /** The subscription is a watcher of the session; with `presence: true` it also hears who else watches. */
  #watch(sessionId: string, entry: Entry, request: SubscribeRequest): void {
    const { presence, sink } = this.#deps;
    entry.watcherId = presence.join(sessionId, this.#deps.subject(), request.label);
    if (request.presence === true) {
      entry.unfollow = presence.follow(sessionId, (update) => {
        if (!sink.closing) sink.send({ type: 'presence', sessionId, ...update });
      });
    }
  }

  #remove(sessionId: string, entry: Entry): void {
    entry.unfollow?.();
    if (entry.watcherId !== undefined) this.#deps.presence.leave(sessionId, entry.watcherId);
    this.#entries.delete(sessionId);
    this.#deps.nodeSubscriptions.give();
    this.#deps.metrics.subscriptions.dec();
    entry.subscription.close();
    if (entry.channel !== undefined) this.#deps.channels.release(entry.channel, entry.subscription);
  }
}
