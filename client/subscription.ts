import type { DerivedMessage, SessionEvent } from '../shared/events.ts';
import { isRedactionAudit } from '../shared/redaction.ts';
import type {
  ClientMessage,
  ErrorMessage,
  EventsMessage,
  ServerMessage,
  SessionMetadata,
  SnapshotMessage,
  Watcher,
} from '../shared/protocol.ts';
import { MessageProjector, type ProjectorState } from '../shared/index.ts';
import { Emitter, emitError } from './emitter.ts';
import { ClientErrorCode, HubClientError } from './errors.ts';
import { PushIterator } from './event-iterator.ts';
import { LocalLog, type OfferResult } from './local-log.ts';
import type { SubscriptionSnapshot, SubscriptionStart } from './subscribe-options.ts';
import { PresenceView, type PresenceRequest } from './presence.ts';
import { FINAL_SUBSCRIPTION_CODES, type SubscriptionEvents, type SubscriptionState } from './subscription-types.ts';
import type { RequestTracker } from './requests.ts';

/** What a subscription needs from its client. */
export interface SubscriptionLink {
  readonly requests: RequestTracker;
  readonly onListenerError: (error: unknown) => void;
  isConnected(): boolean;
  send(message: ClientMessage): boolean;
  retryDelay(attempt: number): number;
  detach(subscription: Subscription): void;
}

/** The epoch on the wire, or undefined for `''`: the session has none yet (nothing was written to it). */
function knownEpoch(wire: string): string | undefined {
  return wire === '' ? undefined : wire;
}

/**
 * A live view of one session: the local copy of its log from `fromSeq`, the derived messages, and events as
 * they commit. Survives reconnects: it resumes from `lastSeq + 1` under its epoch, drops duplicates and fills
 * gaps, so the application sees each seq exactly once, in order.
 */
export class Subscription extends Emitter<SubscriptionEvents> {
  readonly sessionId: string;
  readonly #link: SubscriptionLink;
  readonly #log: LocalLog;
  readonly #presence: PresenceView;
  #state: SubscriptionState = 'pending';
  #epoch: string | undefined;
  #requestId: number | undefined;
  #retries = 0;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #finalError: HubClientError | undefined;
  /** Ask the hub for its snapshot on every (re)subscribe (`from: 'snapshot'`). */
  readonly #fromSnapshot: boolean;
  /** The hub snapshot the local copy starts on (its state and seq), if any. */
  #base: { readonly state: ProjectorState; readonly seq: number } | undefined;

  /** @internal Created by `HubClient.subscribe`. */
  constructor(link: SubscriptionLink, sessionId: string, start: SubscriptionStart, presence?: PresenceRequest) {
    super(link.onListenerError);
    this.#link = link;
    this.sessionId = sessionId;
    this.#log = new LocalLog(start.fromSeq, start.events, start.base);
    if (start.base !== undefined) this.#base = { state: start.base.exportState(), seq: start.fromSeq - 1 };
    this.#fromSnapshot = start.fromSnapshot === true;
    this.#epoch = start.epoch;
    this.#presence = new PresenceView(presence);
  }

  /** Who watches this session, on every node (kept only with `subscribe(id, { presence: true })`; else empty). */
  get presence(): readonly Watcher[] {
    return this.#presence.watchers;
  }

  /** The session's metadata as last heard (only with `subscribe(id, { metadata: true })`; else undefined). */
  get metadata(): SessionMetadata | undefined {
    return this.#presence.metadata;
  }

  get state(): SubscriptionState {
    return this.#state;
  }
  /** The local copy of the log, ascending and contiguous from `fromSeq` (seq 0 after a reset). */
  get events(): readonly SessionEvent[] {
    return this.#log.events;
  }
  /**
   * Seq of the hub snapshot the local copy starts on (`from: 'snapshot'`): `events` holds only the events after it,
   * `messages` are exact all the same. -1 when the hub had no snapshot (the events then start at seq 0); undefined
   * when the copy did not start on a snapshot. Older events stay readable with `client.readEvents` (HTTP, paged).
   */
  get snapshotSeq(): number | undefined {
    return this.#base?.seq;
  }
  /** First seq of the local copy. */
  get fromSeq(): number {
    return this.#log.startSeq;
  }
  /** Seq of the last event received (`fromSeq - 1` before the first). */
  get lastSeq(): number {
    return this.#log.lastSeq;
  }
  /**
   * Epoch of the session's data the local copy belongs to (known once subscribed, unless the session had none: then
   * known with its first events).
   */
  get epoch(): string | undefined {
    return this.#epoch;
  }
  /** Derived messages. Exact (equal to `deriveMessages` of the log so far) only when `messagesComplete`. */
  get messages(): readonly DerivedMessage[] {
    return this.#log.messages;
  }
  /** True when the local copy starts at seq 0; a subscription from a later seq derives no messages. */
  get messagesComplete(): boolean {
    return this.#log.complete;
  }
  get isLive(): boolean {
    return this.#state === 'live';
  }

  /**
   * What to keep to resume this subscription later, e.g. across a page reload: `client.subscribe(sessionId,
   * { resume: snapshot })` continues after its last seq with the same derived messages, or — if the session's
   * data was replaced meanwhile (another epoch) — emits `reset` and rebuilds from seq 0. Plain data (the events
   * are the local copy's, frozen): store it as is (IndexedDB, `JSON.stringify`).
   */
  snapshot(): SubscriptionSnapshot {
    const kept = { sessionId: this.sessionId, epoch: this.#epoch ?? null, events: [...this.#log.events] };
    return this.#base === undefined || this.#base.seq < 0 ? kept : { ...kept, base: this.#base.state };
  }

  /** Resolves once the subscription is live (caught up); rejects if it closes first. */
  whenLive(): Promise<void> {
    if (this.#state === 'live') return Promise.resolve();
    if (this.#state === 'closed') return Promise.reject(this.#closedError());
    return new Promise((resolve, reject) => {
      const offLive = this.once('live', () => {
        offClosed();
        resolve();
      });
      const offClosed = this.once('closed', () => {
        offLive();
        reject(this.#closedError());
      });
    });
  }

  /** Events from the start of the local copy on, then each new one as it arrives; ends when closed. */
  [Symbol.asyncIterator](): AsyncIterableIterator<SessionEvent> {
    const iterator = new PushIterator<SessionEvent>(() => stop());
    for (const event of this.#log.events) iterator.push(event);
    const offEvent = this.on('event', (event) => iterator.push(event));
    const offClosed = this.on('closed', () =>
      this.#finalError === undefined ? iterator.end() : iterator.fail(this.#finalError),
    );
    const stop = (): void => {
      offEvent();
      offClosed();
    };
    if (this.#state === 'closed') {
      stop();
      if (this.#finalError === undefined) iterator.end();
      else iterator.fail(this.#finalError);
    }
    return iterator;
  }

  /** Stop receiving; the local copy stays readable. */
  close(): void {
    if (this.#state === 'closed') return;
    if (this.#state !== 'pending')
      this.#send({ type: 'unsubscribe', id: this.#trackIgnored(), sessionId: this.sessionId });
    this.#forgetRequest();
    clearTimeout(this.#retryTimer);
    this.#state = 'closed';
    this.#link.detach(this);
    this.emit('closed');
    this.removeAllListeners();
  }

  /** @internal The client connected: (re)subscribe from `lastSeq + 1`. */
  connected(): void {
    if (this.#state === 'pending' && this.#retryTimer === undefined) this.#subscribe();
  }

  /** @internal The connection dropped: resume when it is back. */
  disconnected(): void {
    if (this.#state === 'closed') return;
    this.#forgetRequest();
    this.#state = 'pending';
  }

  /** @internal A message about this session from the hub. */
  handle(message: ServerMessage): void {
    if (this.#state === 'closed') return;
    switch (message.type) {
      case 'events':
        if (this.#state === 'catching-up' || this.#state === 'live') this.#onEventsMessage(message);
        break;
      case 'live':
        if (this.#state === 'catching-up') this.#onLive(message.headSeq);
        break;
      case 'reset':
        this.#onReset(message.epoch);
        break;
      case 'snapshot':
        if (this.#state === 'subscribing') this.#onSnapshot(message);
        break;
      case 'presence':
        this.emit('presence', this.#presence.update(message));
        break;
      case 'metadata': {
        const metadata = this.#presence.updateMetadata(message);
        if (metadata !== undefined) this.emit('metadata', metadata);
        break;
      }
      case 'error':
        this.#onError(message);
        break;
      default:
        break;
    }
  }

  #subscribe(): void {
    this.#forgetRequest();
    if (!this.#link.isConnected()) {
      this.#state = 'pending';
      return;
    }
    const id = this.#link.requests.nextId();
    this.#requestId = id;
    this.#link.requests.track(id, { onReply: (reply) => this.#onReply(id, reply), onLost: () => undefined });
    this.#state = 'subscribing';
    // From a snapshot, a copy that cannot derive exact messages (a resume from a later seq) claims no position.
    const claims = !this.#fromSnapshot || this.#log.complete;
    const fromSeq = claims ? this.#log.lastSeq + 1 : 0;
    this.#send({
      type: 'subscribe',
      id,
      sessionId: this.sessionId,
      fromSeq,
      ...(this.#epoch === undefined || !claims ? {} : { epoch: this.#epoch }),
      ...this.#presence.requestFields,
      ...(this.#fromSnapshot ? { snapshot: true } : {}),
    });
  }

  /**
   * The hub's snapshot, before `subscribed`: adopt it (the copy restarts on it, messages exact at once), unless it
   * says our copy is current (`state: null`). A snapshot of another epoch than ours is a reset of what we held.
   */
  #onSnapshot(message: SnapshotMessage): void {
    if (message.state === null) return;
    let base: MessageProjector;
    try {
      base = MessageProjector.fromState(message.state);
      if (base.length !== message.seq + 1) throw new RangeError(`its state ends at ${base.length - 1}`);
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      this.#fail(
        new HubClientError(ClientErrorCode.PROTOCOL, `snapshot of ${this.sessionId} is malformed: ${reason}`, {
          sessionId: this.sessionId,
          cause,
        }),
      );
      return;
    }
    const epoch = knownEpoch(message.epoch);
    const held = this.#log.events.length > 0 || this.#log.startSeq > 0;
    const before = this.#log.messages.length;
    if (held && epoch !== this.#epoch) this.emit('reset', message.epoch);
    if (this.#state === 'closed') return;
    this.#epoch = epoch;
    this.#log.adopt(base);
    this.#base = { state: message.state, seq: message.seq };
    if (before > 0 || base.messages.length > 0) {
      const change = { kind: 'replaced', start: 0, deleteCount: before, messages: base.messages } as const;
      this.emit('messages', change, this.#log.messages);
    }
  }

  /** Drop the hub-side subscription (if any) and subscribe again from `lastSeq + 1`. */
  #resubscribe(): void {
    if (this.#link.isConnected()) {
      this.#send({ type: 'unsubscribe', id: this.#trackIgnored(), sessionId: this.sessionId });
    }
    this.#subscribe();
  }

  #onReply(id: number, reply: ServerMessage): void {
    if (id !== this.#requestId || this.#state !== 'subscribing') return;
    this.#requestId = undefined;
    if (reply.type === 'error') {
      this.#onError(reply);
      return;
    }
    if (reply.type !== 'subscribed') {
      this.#fail(new HubClientError(ClientErrorCode.PROTOCOL, `unexpected ${reply.type} in reply to subscribe`));
      return;
    }
    // Holding no epoch (the session had none when we subscribed) means holding no events: the first epoch the hub names is adopted.
    const lostData = this.#epoch !== undefined && knownEpoch(reply.epoch) !== this.#epoch;
    this.#retries = 0;
    this.#state = 'catching-up';
    // `reply.headSeq` is not compared with what we hold: a node whose channel lags the store may report less
    // than the store has. Lost history under the same epoch is reported unambiguously as SEQ_OUT_OF_RANGE.
    if (lostData) this.#onReset(reply.epoch);
    else this.#epoch = knownEpoch(reply.epoch);
  }

  /**
   * The session got its first epoch since the hub told us it had none: adopt it (we hold no events, so nothing is
   * void). Another epoch than one we hold cannot come this way; should it, it is taken as a reset.
   */
  #onFirstEpoch(epoch: string): void {
    if (this.#epoch === undefined && this.#log.startSeq === 0 && this.#log.events.length === 0) {
      this.#epoch = knownEpoch(epoch);
    } else if (knownEpoch(epoch) !== this.#epoch) {
      this.#onReset(epoch);
    }
  }

  #onEventsMessage(message: EventsMessage): void {
    if (message.epoch !== undefined) this.#onFirstEpoch(message.epoch);
    if (this.#state !== 'closed') this.#onEvents(message.events);
  }

  #onEvents(events: readonly SessionEvent[]): void {
    for (const event of events) {
      let result: OfferResult;
      try {
        result = this.#log.offer(event);
      } catch (cause) {
        // An event the log contract refuses (a corrupted store, or a hub that broke the contract): the copy cannot
        // go on without lying, and resubscribing would read the same event again. End the subscription, never the
        // process (this runs inside the socket's message handler).
        const message = cause instanceof Error ? cause.message : String(cause);
        this.#fail(
          new HubClientError(
            ClientErrorCode.PROTOCOL,
            `event ${event.seq} of ${this.sessionId} breaks the log contract: ${message}`,
            {
              sessionId: this.sessionId,
              details: { seq: event.seq },
              cause,
            },
          ),
        );
        return;
      }
      if (result.kind === 'duplicate') continue;
      if (result.kind === 'gap') {
        this.#resubscribe();
        return;
      }
      this.emit('event', event);
      if (result.change.kind !== 'unchanged') this.emit('messages', result.change, this.#log.messages);
      if (isRedactionAudit(event)) this.emit('redacted', event.data, event.seq);
      if (this.#state === 'closed') return;
    }
  }

  #onLive(headSeq: number): void {
    if (this.#log.lastSeq < headSeq) {
      this.#resubscribe();
      return;
    }
    this.#state = 'live';
    this.emit('live', headSeq);
  }

  #onReset(epoch: string): void {
    const known = knownEpoch(epoch);
    if (known === this.#epoch && this.#log.startSeq === 0 && this.#log.events.length === 0) return;
    this.#epoch = known;
    this.#log.reset();
    this.#base = undefined;
    // The hub restarts the subscription from seq 0 after a reset; should it not, the next event or `live`
    // reveals a gap and the subscription is renewed from seq 0.
    if (this.#state === 'live') this.#state = 'catching-up';
    this.emit('reset', epoch);
  }

  #onError(message: ErrorMessage): void {
    if (message.code === 'SEQ_OUT_OF_RANGE' && this.#epoch !== undefined) {
      this.#onLostTail();
      return;
    }
    const error = new HubClientError(message.code, message.message, {
      sessionId: this.sessionId,
      details: message.details,
    });
    // A node-wide subscription cap (details.scope 'node') is not this client's doing: retry later, like a full node.
    const nodeFull = message.code === 'TOO_MANY_SUBSCRIPTIONS' && message.details?.['scope'] === 'node';
    if (FINAL_SUBSCRIPTION_CODES.has(message.code) && !nodeFull) {
      this.#fail(error);
      return;
    }
    emitError(this, error, `subscription ${this.sessionId}`);
    if (this.#state === 'closed') return;
    this.#forgetRequest();
    this.#state = 'pending';
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      if (this.#state === 'pending') this.#resubscribe();
    }, this.#link.retryDelay(this.#retries++));
  }

  /**
   * A resume under a known epoch was refused with SEQ_OUT_OF_RANGE: the store holds less than we received under
   * that epoch (it lost a tail, e.g. a Redis failover to a replica that missed the last writes). Never merge two
   * histories: reset locally and rebuild from seq 0.
   */
  #onLostTail(): void {
    this.#forgetRequest();
    this.#log.reset();
    this.#base = undefined;
    this.emit('reset', this.#epoch!);
    if (this.#state === 'closed') return;
    this.#resubscribe();
  }

  #fail(error: HubClientError): void {
    this.#finalError = error;
    emitError(this, error, `subscription ${this.sessionId}`);
    this.close();
  }

  #send(message: ClientMessage): void {
    if (!this.#link.send(message)) this.#state = this.#state === 'closed' ? 'closed' : 'pending';
  }

  /** A request id whose answer is not needed (unsubscribe). */
  #trackIgnored(): number {
    const id = this.#link.requests.nextId();
    this.#link.requests.track(id, { onReply: () => undefined, onLost: () => undefined });
    return id;
  }

  #forgetRequest(): void {
    if (this.#requestId !== undefined) this.#link.requests.forget(this.#requestId);
    this.#requestId = undefined;
  }

  #closedError(): HubClientError {
    return this.#finalError ?? new HubClientError(ClientErrorCode.CLOSED, 'subscription closed');
  }
}
