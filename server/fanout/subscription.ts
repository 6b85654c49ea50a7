import { backoffDelay, type BackoffOptions } from '../../shared/backoff.ts';
import { HubErrorCode, type ServerMessage } from '../../shared/protocol.ts';
import { CatchUpFrame, type EventsFrame } from './events-frame.ts';
import { HubError } from '../hub-error.ts';
import type { LiveBatch } from './live-batch.ts';
import type { Logger } from '../logger.ts';
import type { HubMetrics } from '../metrics.ts';
import type { ChannelListener, SessionChannel } from './session-channel.ts';
import type { SessionLocation } from './session-location.ts';
import { EncodedEventPage } from '../store/codec/encoded-page.ts';
import { NO_EPOCH } from '../store/event-store.ts';
import { finalCatchUpError } from './catch-up-failure.ts';
import { StoreReadSizer, type StoreReadLimits } from '../limits/store-reads.ts';

/** Where a subscription writes (the connection). Frames go out in call order. */
export interface SubscriberSink {
  send(message: ServerMessage): void;
  /** Send an `events` frame: a live batch (its shared, pre-encoded frame) or a catch-up page. */
  sendBatch(batch: EventsFrame): void;
  /** The connection's outbound queue is over its bound (a slow consumer): push no more events for now. */
  readonly behind: boolean;
  /** Resolves once the outbound queue is under its bound again (or the connection is closing). */
  whenDrained(): Promise<void>;
  /** The connection is closing (or cut as a slow consumer): nothing sent reaches the client any more. */
  readonly closing: boolean;
}

export interface SubscriptionDeps {
  readonly sink: SubscriberSink;
  readonly logger: Logger;
  readonly metrics: HubMetrics;
  /** How many events a catch-up read asks for (bounded by bytes: see `StoreReadSizer`). */
  readonly reads: StoreReadLimits;
  /**
   * Bound of one catch-up `events` frame (bytes, about; at least one event each): pages are cut into frames of at
   * most this. The node's `maxFrameBytes`.
   */
  readonly maxFrameBytes: number;
  readonly maxBufferedLiveEvents: number;
  /**
   * The subscription cannot go on (its catch-up read a corrupted stored entry, or seqs trimmed from the log) and has
   * closed itself: the owner drops it and tells the client `error`.
   */
  readonly onFailed?: (error: HubError) => void;
}

export interface SubscribeParams {
  readonly requestId: number;
  readonly sessionId: string;
  readonly fromSeq: number;
  readonly epoch: string | undefined;
}

/** Retry of a failed catch-up read: up to 100 ms for the first, growing to 5 s while the store keeps failing. */
const CATCH_UP_RETRY: BackoffOptions = { initialDelayMs: 100, maxDelayMs: 5000, factor: 2 };
/** Waits for the channel to re-check the head (an evicted epoch key lasts until the next commit): 100 ms → 5 s. */
const CHANNEL_WAIT: BackoffOptions = { initialDelayMs: 100, maxDelayMs: 5000, factor: 2 };

/** A catch-up read: the page from `fromSeq` of at most `limit` events (a short page means the log's end). */
interface PageRead {
  readonly generation: number;
  readonly fromSeq: number;
  readonly limit: number;
  readonly page: Promise<EncodedEventPage>;
}

/** About how many bytes a page's events take on the wire (see `EncodedEventPage.eventBytes`), and the largest. */
function pageBytes(page: EncodedEventPage): { total: number; largest: number } {
  const sizes = Array.from({ length: page.count }, (_, index) => page.eventBytes(index));
  return { total: sizes.reduce((sum, bytes) => sum + bytes, 0), largest: Math.max(0, ...sizes) };
}

/** Where a subscription is: answering the subscribe, reading the store, following the channel, or ended. */
export type SubscriptionState = 'starting' | 'catching-up' | 'paused' | 'live' | 'closed';

/** The error of a subscribe whose subscription was unsubscribed before it started (nothing was sent). */
export function unsubscribedMeanwhile(sessionId: string): HubError {
  return new HubError(HubErrorCode.NOT_SUBSCRIBED, `unsubscribed from ${sessionId} before the subscription started`);
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * One subscriber of one session: catch-up from `fromSeq` by paging the store, then live from the session channel,
 * with no gap and no duplicate at the hand-over. The channel is its one source: where the session is (`locate`),
 * the pages (`readCatchUp`), the live batches; what the subscriber finds that the channel may not know it reports
 * (`storeEndedAt`, `subscriberCaughtUp`), and the channel decides what to do about it.
 *
 * The listener is on the channel before the first read, so every live batch committed during catch-up is
 * buffered (a bounded suffix of the channel's contiguous stream). When a store read comes back short, the
 * subscriber goes live if the buffer covers everything from its next seq up to the channel's last seq (sending
 * the buffered part it has not read), else it reads again. Live, a batch that overlaps what was sent is trimmed;
 * one that starts past the next seq (cannot happen with a contiguous channel, but is cheap to handle) sends the
 * subscriber back to catch-up.
 */
export class Subscription implements ChannelListener {
  readonly sessionId: string;
  #state: SubscriptionState = 'starting';
  #nextSeq: number;
  /**
   * The epoch of the events this subscriber is sent: the channel's, as of `subscribed` or the last reset, or the
   * session's first epoch (`onEpoch`) when it had none then.
   */
  #epoch = NO_EPOCH;
  /** The epoch the client was last told (`subscribed`, `reset`, or the `epoch` of an `events` frame). */
  #clientEpoch = NO_EPOCH;
  #buffer: LiveBatch[] = [];
  #bufferedEvents = 0;
  #generation = 0;
  /** A catch-up page being read ahead of its step (see `#readAhead`). */
  #ahead: PageRead | undefined;
  /** Events per catch-up read: bounded by bytes, sized by the events read so far. */
  readonly #readSize: StoreReadSizer;
  #channel: SessionChannel | undefined;
  /** Ends the current wait for the channel (see `CHANNEL_WAIT`), when one runs. */
  #wake: (() => void) | undefined;
  readonly #deps: SubscriptionDeps;

  constructor(params: Pick<SubscribeParams, 'sessionId' | 'fromSeq'>, deps: SubscriptionDeps) {
    this.#readSize = new StoreReadSizer(deps.reads);
    this.sessionId = params.sessionId;
    this.#nextSeq = params.fromSeq;
    this.#deps = deps;
  }

  get state(): SubscriptionState {
    return this.#state;
  }

  /** Next seq this subscriber will be sent. */
  get nextSeq(): number {
    return this.#nextSeq;
  }

  /**
   * Answer the subscribe request (`subscribed`, or `reset` first when the epoch differs) and start the catch-up.
   * Throws SEQ_OUT_OF_RANGE (nothing sent) when `fromSeq` lies beyond the head + 1, and `unsubscribedMeanwhile`
   * (nothing sent) when the subscription was closed while the channel located the session.
   */
  async start(channel: SessionChannel, params: SubscribeParams): Promise<void> {
    this.#channel = channel;
    this.#nextSeq = params.fromSeq; // a join from a snapshot learns where it starts only now
    const claim = { epoch: params.epoch, fromSeq: params.fromSeq };
    await channel.locate(claim, (location) => this.#answer(params.requestId, location));
  }

  /**
   * Called synchronously with the channel's answer: the channel's epoch and head cannot change until the
   * `subscribed` (and `reset`) are sent and the catch-up has started.
   */
  #answer(requestId: number, location: SessionLocation): void {
    if (this.#state === 'closed') throw unsubscribedMeanwhile(this.sessionId);
    this.#epoch = location.epoch;
    this.#clientEpoch = location.epoch;
    this.#deps.sink.send({
      type: 'subscribed',
      id: requestId,
      sessionId: this.sessionId,
      epoch: location.epoch,
      headSeq: location.headSeq,
    });
    if (location.voidedEpoch !== undefined) {
      this.#sendReset(location.epoch, `epoch ${location.voidedEpoch} is no longer valid`);
      this.#nextSeq = 0;
    }
    this.#startCatchUp();
  }

  onBatch(batch: LiveBatch): void {
    // Paused (slow consumer): drop live batches, the catch-up re-reads them from the store once drained.
    if (this.#state === 'closed' || this.#state === 'paused') return;
    if (this.#state !== 'live') {
      this.#bufferBatch(batch);
      return;
    }
    if (batch.lastSeq < this.#nextSeq) return;
    if (batch.firstSeq > this.#nextSeq) {
      this.#deps.logger.warn(
        { sessionId: this.sessionId, nextSeq: this.#nextSeq, firstSeq: batch.firstSeq },
        'live gap: catching up from the store',
      );
      this.#bufferBatch(batch);
      this.#startCatchUp();
      return;
    }
    if (this.#deps.sink.behind) {
      // Slow consumer: stop pushing live events; catch up from the store at the client's own pace.
      this.#deps.metrics.slowConsumerPauses.inc();
      this.#startCatchUp();
      return;
    }
    this.#sendBatch(batch);
  }

  /**
   * The session got its first epoch: nothing was sent under the old (none), so the position stays valid. The next
   * `events` frame tells the client (see `#sendFrame`).
   */
  onEpoch(epoch: string): void {
    if (this.#state !== 'starting') this.#epoch = epoch;
  }

  onReset(epoch: string, reason: string): void {
    if (this.#state === 'closed') return;
    // Batches buffered so far belong to the old epoch: never send them.
    this.#buffer = [];
    this.#bufferedEvents = 0;
    // While starting, `start` reads the channel's (new) epoch itself.
    if (this.#state === 'starting') return;
    this.#epoch = epoch;
    this.#sendReset(epoch, reason);
    this.#nextSeq = 0;
    this.#startCatchUp();
  }

  close(): void {
    this.#wake?.();
    this.#state = 'closed';
    this.#generation++;
    this.#ahead = undefined;
    this.#buffer = [];
  }

  #sendReset(epoch: string, reason: string): void {
    this.#deps.metrics.resets.inc();
    this.#clientEpoch = epoch;
    this.#deps.sink.send({ type: 'reset', sessionId: this.sessionId, epoch, reason });
  }

  /**
   * Send an `events` frame. The first one after the session got its first epoch (the client was told it had none)
   * carries `epoch`, so that a client resuming later claims the epoch its events belong to. That frame is encoded
   * for this subscriber alone; every other one is the shared frame.
   */
  #sendFrame(frame: EventsFrame): void {
    if (this.#clientEpoch === this.#epoch) {
      this.#deps.sink.sendBatch(frame);
      return;
    }
    this.#clientEpoch = this.#epoch;
    this.#deps.sink.send({ ...frame.message, epoch: this.#epoch });
  }

  #bufferBatch(batch: LiveBatch): void {
    this.#wake?.();
    this.#buffer.push(batch);
    this.#bufferedEvents += batch.events.length;
    while (this.#bufferedEvents > this.#deps.maxBufferedLiveEvents && this.#buffer.length > 1) {
      this.#bufferedEvents -= this.#buffer.shift()!.events.length;
    }
  }

  #startCatchUp(): void {
    this.#wake?.();
    this.#state = 'catching-up';
    const generation = ++this.#generation;
    this.#catchUp(generation).catch((error: unknown) => {
      this.#deps.logger.error({ err: error, sessionId: this.sessionId }, 'catch-up failed');
    });
  }

  /**
   * Page the store from `nextSeq` until the subscriber can go live. Any failure (store down, a page that does not
   * start at `nextSeq`) is logged and the read is retried with backoff: a catch-up never stops half-way. A page of
   * another epoch is never sent: the channel, which read it, re-checks the head (and resets this subscriber).
   */
  async #catchUp(generation: number): Promise<void> {
    let failures = 0;
    let waits = 0;
    const { sink } = this.#deps;
    while (generation === this.#generation) {
      // A closing connection (a slow consumer cut, a GOING_AWAY) would only drop the pages: stop reading them.
      if (sink.closing) return;
      if (sink.behind) {
        this.#state = 'paused';
        this.#buffer = [];
        this.#bufferedEvents = 0;
        await sink.whenDrained();
        if (generation !== this.#generation || sink.closing) return;
        this.#state = 'catching-up';
      }
      try {
        const step = await this.#catchUpStep();
        if (step === 'live') return;
        failures = 0;
        if (step === 'wait') await this.#waitForChannel(backoffDelay(waits++, CHANNEL_WAIT));
        else waits = 0;
      } catch (error) {
        if (generation !== this.#generation) return;
        const final = finalCatchUpError(error, this.sessionId, this.#nextSeq);
        if (final !== undefined) {
          // Re-reading gives the same answer (corrupted data, trimmed seqs): end with an error, not silence.
          const level = final.code === HubErrorCode.GONE ? 'warn' : 'error';
          this.#deps.logger[level]({ err: error, sessionId: this.sessionId }, `catch-up ended: ${final.code}`);
          this.close();
          this.#deps.onFailed?.(final);
          return;
        }
        this.#deps.logger.warn({ err: error, sessionId: this.sessionId }, 'catch-up read failed; retrying');
        await pause(backoffDelay(failures++, CATCH_UP_RETRY));
      }
    }
  }

  /**
   * One store read: returns 'live' once live, 'wait' when the channel must re-check the head first, else 'next'.
   * After a full page the next one is read ahead while this one is sent (Redis reads while the hub splices and
   * writes).
   */
  async #catchUpStep(): Promise<'live' | 'wait' | 'next'> {
    const { metrics } = this.#deps;
    const generation = this.#generation;
    const read = this.#readPage(this.#nextSeq);
    const page = await read.page;
    if (generation !== this.#generation) return 'next';
    if ((page.epoch ?? NO_EPOCH) !== this.#epoch) return 'wait';
    if (this.#deps.sink.behind) {
      // The client fell behind while the page was read: keep it for after the drain (nothing more is queued).
      this.#ahead = read;
      return 'next';
    }
    const fresh = page.count;
    if (fresh > 0) {
      if (page.firstSeq !== this.#nextSeq)
        throw new Error(`store read from ${this.#nextSeq} started at ${page.firstSeq}`);
      const bytes = pageBytes(page);
      this.#readSize.observe(bytes.largest);
      if (fresh >= read.limit) this.#readAhead(this.#nextSeq + fresh);
      this.#sendPage(page, bytes.total);
      metrics.catchUpEvents.inc(fresh);
    }
    // Going live sends the live batches buffered meanwhile: not into a queue that is over its bound.
    if (this.#deps.sink.behind) return 'next';
    if (fresh < read.limit && this.#tryGoLive()) return 'live';
    if (fresh > 0) return 'next';
    // The store has nothing more, yet the live stream is ahead: the channel may hold a stale epoch (the store
    // lost its data, or its epoch key). Tell it, and wait (backing off) instead of re-reading in a tight loop.
    this.#channel!.storeEndedAt(this.#nextSeq);
    return 'wait';
  }

  /** Wait `ms`, or less: a live batch or a reset ends the wait (the subscriber may go live, or start over). */
  #waitForChannel(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        if (this.#wake === done) this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms).unref();
      this.#wake = done;
    });
  }

  /** The page from `fromSeq`: the one read ahead for it in this generation, else a new read. */
  #readPage(fromSeq: number): PageRead {
    const ahead = this.#ahead;
    this.#ahead = undefined;
    if (ahead !== undefined && ahead.generation === this.#generation && ahead.fromSeq === fromSeq) return ahead;
    this.#deps.metrics.catchUpReads.inc();
    const limit = this.#readSize.count;
    return { generation: this.#generation, fromSeq, limit, page: this.#encodedPage(fromSeq, limit) };
  }

  /**
   * Read the stored page from `fromSeq` through the channel and make it the page catch-up sends: its bodies are
   * verified (a corrupted one rejects with `StoreDataError`) and spliced into msgpack events, never decoded.
   */
  #encodedPage(fromSeq: number, limit: number): Promise<EncodedEventPage> {
    return this.#channel!.readCatchUp(fromSeq, limit).then((stored) => new EncodedEventPage(this.sessionId, stored));
  }

  /**
   * Start reading the page from `fromSeq` now. The log of an epoch never changes, and the page is epoch-checked
   * like any other, so reading it early is safe; a read-ahead that fails fails the step that uses it (retried).
   */
  #readAhead(fromSeq: number): void {
    this.#deps.metrics.catchUpReads.inc();
    const limit = this.#readSize.count;
    const page = this.#encodedPage(fromSeq, limit);
    page.catch(() => undefined); // unhandled only when discarded; the step that uses it sees the rejection
    this.#ahead = { generation: this.#generation, fromSeq, limit, page };
  }

  /**
   * Go live if the buffer covers nextSeq..channel.lastSeq; returns false when another store read is needed.
   * `live.headSeq` is the last seq sent before it: ≥ the store's head as of the last catch-up read, ≥ the
   * channel's last seq, and ≥ `fromSeq - 1` of an accepted subscribe.
   */
  #tryGoLive(): boolean {
    const channel = this.#channel!;
    const target = channel.lastSeq;
    const pending = this.#buffer.filter((batch) => batch.lastSeq >= this.#nextSeq);
    this.#buffer = [];
    this.#bufferedEvents = 0;
    if (target >= this.#nextSeq && (pending.length === 0 || pending[0]!.firstSeq > this.#nextSeq)) return false;
    for (const batch of pending) this.#sendBatch(batch);
    this.#state = 'live';
    this.#deps.sink.send({ type: 'live', sessionId: this.sessionId, headSeq: this.#nextSeq - 1 });
    channel.subscriberCaughtUp(this.#nextSeq - 1);
    return true;
  }

  #sendBatch(batch: LiveBatch): void {
    const part = batch.from(this.#nextSeq);
    if (part === undefined) return;
    this.#sendFrame(part);
    this.#nextSeq = part.lastSeq + 1;
    this.#deps.metrics.hot.deliveries += part.events.length;
  }

  /**
   * Send a catch-up page, in frames of at most `maxFrameBytes` (about; one event at least): a client's frame limit
   * (100 MiB for `ws`) must never make a long log of large events impossible to replay. Binary frames are spliced
   * from the stored events (no decode and re-encode).
   */
  #sendPage(page: EncodedEventPage, bytes: number): void {
    const { maxFrameBytes } = this.#deps;
    if (bytes <= maxFrameBytes) this.#sendFrame(new CatchUpFrame(this.sessionId, page));
    else this.#sendInFrames(page, maxFrameBytes);
    this.#nextSeq = page.firstSeq + page.count;
    this.#deps.metrics.hot.deliveries += page.count;
  }

  /** Cut a page bigger than `maxFrameBytes` into frames of at most that (one event at least). */
  #sendInFrames(page: EncodedEventPage, maxFrameBytes: number): void {
    let start = 0;
    let bytes = 0;
    for (let index = 0; index < page.count; index++) {
      const size = page.eventBytes(index);
      if (index > start && bytes + size > maxFrameBytes) {
        this.#sendFrame(new CatchUpFrame(this.sessionId, page.slice(start, index)));
        start = index;
        bytes = 0;
      }
      bytes += size;
    }
    this.#sendFrame(new CatchUpFrame(this.sessionId, page.slice(start, page.count)));
  }
}
