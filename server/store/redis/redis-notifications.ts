import { StoreUnavailableError, type CommittedBatch, type StoreWatchHandlers } from '../event-store.ts';
import { decodeCommittedMessage, peekNoticeHeader } from './redis-entries.ts';
import { DELETED_NOTICE } from './redis-scripts.ts';
import { METADATA_NOTICE_PREFIX } from './redis-metadata-scripts.ts';
import { metadataOfFields } from './redis-metadata.ts';
import { REDACTED_NOTICE } from './redis-redaction-scripts.ts';
import { withTimeout } from '../../../shared/timeout.ts';
import type { StoreErrorReporter } from '../watcher-registry.ts';
import { WatcherRegistry } from '../watcher-registry.ts';
import type { PubSubTransport } from './redis-pubsub.ts';

interface Subscription {
  readonly channel: string;
  /**
   * Resolves when the SUBSCRIBE is acknowledged (from then on, every commit of the session is delivered); rejects
   * with `StoreUnavailableError` when Redis refused it. Undefined once acknowledged (no promise kept per session).
   */
  active: Promise<void> | undefined;
  /** The last SUBSCRIBE was refused: `whenActive` sends it again. */
  refused: boolean;
}

/**
 * Live notifications of the Redis engine: one subscription per watched session (reference-counted through the
 * watcher registry, dropped when the last watcher leaves), over plain pub/sub on one Redis or sharded pub/sub on a
 * Cluster (`PubSubTransport`). When the transport says subscriptions may be lost (the subscriber reconnected, a slot
 * moved, a master failed over), every channel is subscribed again and then every watcher gets `onResync()`.
 */
export class RedisNotifications {
  readonly #transport: PubSubTransport;
  readonly #watchers: WatcherRegistry;
  readonly #report: StoreErrorReporter;
  readonly #bySession = new Map<string, Subscription>();
  /** The session of a channel (no map from channels back to sessions is kept: a channel names its session). */
  readonly #sessionOfChannel: (channel: string) => string | undefined;
  /** Per watched session: epoch and last seq of what was delivered (a repeated or older notice is dropped). */
  readonly #delivered = new Map<string, { readonly epoch: string; readonly lastSeq: number }>();

  constructor(
    transport: PubSubTransport,
    report: StoreErrorReporter,
    sessionOfChannel: (channel: string) => string | undefined,
  ) {
    this.#transport = transport;
    this.#report = report;
    this.#sessionOfChannel = sessionOfChannel;
    this.#watchers = new WatcherRegistry(report);
    transport.onMessage((channel, message) => this.#onMessage(channel, message));
    transport.onLost(() => this.#onLost());
  }

  /** Returns the stop function: a bound method, not a closure (one per watched session on the node). */
  watch(sessionId: string, channel: string, handlers: StoreWatchHandlers): () => void {
    if (this.#watchers.add(sessionId, handlers)) {
      const subscription: Subscription = { channel, active: undefined, refused: false };
      subscription.active = this.#subscribe([subscription], false);
      this.#bySession.set(sessionId, subscription);
    }
    return this.#unwatch.bind(this, sessionId, handlers);
  }

  #unwatch(sessionId: string, handlers: StoreWatchHandlers): void {
    if (!this.#watchers.remove(sessionId, handlers)) return;
    const subscription = this.#bySession.get(sessionId);
    this.#bySession.delete(sessionId);
    this.#delivered.delete(sessionId);
    if (subscription === undefined) return; // closed meanwhile
    this.#transport.unsubscribe(subscription.channel).catch((error: unknown) => this.#reportError(error));
  }

  /**
   * Resolves once notifications of `sessionId` flow (immediately when it is not watched), so that a read made
   * after `watch()` misses nothing. Rejects with `StoreUnavailableError` after `timeoutMs`.
   */
  async whenActive(sessionId: string, timeoutMs: number): Promise<void> {
    const subscription = this.#bySession.get(sessionId);
    if (subscription === undefined) return;
    if (subscription.refused) subscription.active = this.#subscribe([subscription], true);
    if (subscription.active === undefined) return;
    await withTimeout(
      subscription.active,
      timeoutMs,
      () => new StoreUnavailableError('redis: the notification subscription is not established'),
    );
  }

  #deliver(batch: CommittedBatch): void {
    const last = batch.events[batch.events.length - 1];
    if (last !== undefined) this.#delivered.set(batch.sessionId, { epoch: batch.epoch, lastSeq: last.seq });
    this.#watchers.deliver(batch);
  }

  close(): void {
    this.#delivered.clear();
    this.#watchers.clear();
    this.#bySession.clear();
  }

  /** SUBSCRIBE; on a refusal the promise rejects with `StoreUnavailableError` (reported) and marks them refused. */
  #subscribe(subscriptions: readonly Subscription[], again: boolean): Promise<void> {
    for (const subscription of subscriptions) subscription.refused = false;
    const channels = subscriptions.map((subscription) => subscription.channel);
    const active: Promise<void> = this.#transport.subscribe(channels, again).then(
      () => {
        for (const subscription of subscriptions) if (subscription.active === active) subscription.active = undefined;
      },
      (error: unknown) => {
        this.#reportError(error);
        for (const subscription of subscriptions) subscription.refused = true;
        throw new StoreUnavailableError('redis: SUBSCRIBE failed', { cause: error });
      },
    );
    active.catch(() => undefined); // awaited through whenActive; reported above
    return active;
  }

  #onLost(): void {
    // Reconnected, or the slots moved: subscriptions may be gone, and commits may have happened meanwhile. What was
    // delivered is forgotten too: the store may have lost events (a failover), and their seqs will come again.
    this.#delivered.clear();
    const sessions = [...this.#bySession.entries()];
    if (sessions.length === 0) return;
    const active = this.#subscribe(
      sessions.map(([, subscription]) => subscription),
      true,
    );
    for (const [, subscription] of sessions) subscription.active = active;
    // Resync even when the SUBSCRIBE was refused: the watchers' reads then retry it (through `whenActive`).
    const resync = (): void => this.#watchers.resync(sessions.map(([sessionId]) => sessionId));
    void active.then(resync, resync);
  }

  #onMessage(channelBuffer: Buffer, message: Buffer): void {
    const channel = channelBuffer.toString();
    const sessionId = this.#sessionOfChannel(channel);
    if (sessionId === undefined || this.#bySession.get(sessionId)?.channel !== channel) return; // unsubscribed meanwhile
    if (isNotice(message, DELETED_NOTICE) || isNotice(message, REDACTED_NOTICE)) {
      this.#delivered.delete(sessionId);
      this.#watchers.resync([sessionId]); // deleted or redacted: its next head has a new epoch
      return;
    }
    if (message.subarray(0, 2).toString('latin1') === METADATA_NOTICE_PREFIX) {
      this.#onMetadata(sessionId, message);
      return;
    }
    if (this.#isDelivered(sessionId, message)) return;
    try {
      this.#deliver(decodeCommittedMessage(sessionId, message));
    } catch (error) {
      // Never deliver garbage: report, and let the watchers re-read from the log (which verifies again).
      this.#reportError(error);
      this.#watchers.resync([sessionId]);
    }
  }

  /** A metadata notice: `m|` and the JSON list of the metadata hash's fields and values. */
  #onMetadata(sessionId: string, message: Buffer): void {
    try {
      const fields: unknown = JSON.parse(message.subarray(2).toString('utf8'));
      this.#watchers.metadata(sessionId, metadataOfFields(fields, sessionId));
    } catch (error) {
      this.#reportError(error);
    }
  }

  /** A notice of seqs already delivered (a repeat), or older ones, in the same epoch: dropped without decoding. */
  #isDelivered(sessionId: string, message: Buffer): boolean {
    const delivered = this.#delivered.get(sessionId);
    if (delivered === undefined) return false;
    const header = peekNoticeHeader(message);
    return header !== undefined && header.epoch === delivered.epoch && header.firstSeq <= delivered.lastSeq;
  }

  #reportError(error: unknown): void {
    this.#report(error instanceof Error ? error : new Error(String(error)));
  }
}

function isNotice(message: Buffer, notice: string): boolean {
  return message.length === notice.length && message.toString('latin1') === notice;
}
