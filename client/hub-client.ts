import type {
  AppendDraft,
  AppendDraftFor,
  CheckedDrafts,
  EventDraft,
  RuntimeTypedDrafts,
  SessionEvent,
} from '../shared/events.ts';
import { CloseCode } from '../shared/protocol.ts';
import type { MetadataPatch, ServerMessage, SessionMetadata } from '../shared/protocol.ts';
import { sendMetadataPatch, type MetadataLink } from './metadata-request.ts';
import { Appender } from './appender.ts';
import { checkBackoff, checkIntervalMs, checkPositiveInteger, checkTimeoutMs } from './options-check.ts';
import type { AppendOptions } from './appender.ts';
import { backoffDelay } from '../shared/backoff.ts';
import { Connection } from './connection.ts';
import type { ConnectionState } from './connection.ts';
import type { StateCause, StateChange } from './connect-failure.ts';
import { Emitter, emitError, reportListenerError } from './emitter.ts';
import { ClientErrorCode, HubClientError } from './errors.ts';
import { requestRedaction, type RedactionReply } from './redact-request.ts';
import { RequestTracker } from './requests.ts';
import { sendFork, type ForkOptions, type ForkResult } from './fork-request.ts';
import { Subscription } from './subscription.ts';
import { subscriptionStart } from './subscribe-options.ts';
import type { SubscribeOptions } from './subscribe-options.ts';
import { checkPresenceRequest } from './presence.ts';
import { httpBaseOf } from './http-base.ts';
import { readEventRange, type EventRange } from './read-events.ts';
import type { SubscriptionLink } from './subscription.ts';
import { defaultWebSocket } from '#transport';

export type { HubClientOptions } from './hub-client-options.ts';
import type { HubClientOptions } from './hub-client-options.ts';

export type HubClientState = ConnectionState;

/** The hub's default `maxFrameBytes` (1 MiB). */
export const DEFAULT_MAX_FRAME_BYTES = 1024 * 1024;

export type HubClientEvents = {
  /** The connection state changed (emitted once per change), and why: `{ state, previous, code, reason }`. */
  state: [next: HubClientState, previous: HubClientState, change: StateChange];
  /** A connection-level error: refused connection, unreadable frame, failed token function, hub error. */
  error: [error: HubClientError];
};

/**
 * A client of the session hub: one WebSocket (reconnected automatically) multiplexing any number of session
 * subscriptions and appends.
 */
export class HubClient extends Emitter<HubClientEvents> {
  readonly #connection: Connection;
  readonly #requests = new RequestTracker();
  readonly #appender: Appender;
  readonly #subscriptions = new Map<string, Subscription>();
  readonly #link: SubscriptionLink;
  readonly #refreshTimer: ReturnType<typeof setInterval> | undefined;
  readonly #maxFrameBytes: number;
  readonly #requestTimeoutMs: number;
  #stateChange: StateChange = { state: 'connecting', previous: 'connecting', code: 'CONNECTING', reason: 'created' };

  constructor(options: HubClientOptions) {
    const onListenerError = options.onListenerError ?? reportListenerError;
    super(onListenerError);
    if (options.url.length === 0) throw new HubClientError('BAD_REQUEST', 'url must name at least one endpoint');
    // Every numeric option is checked here, before a socket opens: a bad one is a BAD_REQUEST, never a timer that
    // fires at once (setTimeout treats anything above 2^31 - 1 ms as 1 ms) or a limit that refuses everything.
    const requestTimeoutMs = checkTimeoutMs('requestTimeoutMs', options.requestTimeoutMs ?? 30_000);
    this.#requestTimeoutMs = requestTimeoutMs;
    const reconnect = checkBackoff(options.reconnect);
    const refreshMs =
      options.tokenRefreshIntervalMs === undefined
        ? undefined
        : checkIntervalMs('tokenRefreshIntervalMs', options.tokenRefreshIntervalMs);
    this.#maxFrameBytes = checkPositiveInteger('maxFrameBytes', options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES);
    this.#connection = new Connection({
      urls: typeof options.url === 'string' ? [options.url] : [...options.url],
      token: options.token,
      reconnect,
      WebSocket: options.WebSocket ?? defaultWebSocket(),
      heartbeatIntervalMs: checkIntervalMs('heartbeatIntervalMs', options.heartbeatIntervalMs ?? 15_000),
      heartbeatTimeoutMs: checkIntervalMs('heartbeatTimeoutMs', options.heartbeatTimeoutMs ?? 40_000),
      connectTimeoutMs: checkIntervalMs('connectTimeoutMs', options.connectTimeoutMs ?? 10_000),
      requests: this.#requests,
      onListenerError,
    });
    this.#appender = new Appender(this.#connection, this.#requests, {
      outboxLimit: checkPositiveInteger('outboxLimit', options.outboxLimit ?? 1000),
      defaultTimeoutMs: requestTimeoutMs,
      retryDelay: (attempt) => backoffDelay(attempt, reconnect),
      limits: () => ({
        maxFrameBytes: this.maxFrameBytes,
        maxEventsPerAppend: this.#connection.hubLimits?.maxEventsPerAppend,
      }),
      maxInFlightPerSession: checkPositiveInteger(
        'maxAppendsInFlightPerSession',
        options.maxAppendsInFlightPerSession ?? 32,
      ),
    });
    this.#link = {
      requests: this.#requests,
      onListenerError,
      isConnected: () => this.#connection.state === 'connected',
      send: (message) => this.#connection.send(message),
      retryDelay: (attempt) => backoffDelay(attempt, reconnect),
      detach: (subscription) => {
        if (this.#subscriptions.get(subscription.sessionId) === subscription) {
          this.#subscriptions.delete(subscription.sessionId);
        }
      },
    };
    this.#connection.on('state', (next, previous, cause) => this.#onState(next, previous, cause));
    this.#connection.on('message', (message) => this.#onMessage(message));
    this.#connection.on('lost', (code) => {
      if (code === CloseCode.MESSAGE_TOO_BIG) this.#appender.frameRefused();
    });
    this.#connection.on('error', (error) => {
      if (this.listenerCount('error') === 0 && !consoleWorthy(error)) return;
      emitError(this, error, 'client');
    });
    this.#connection.start();
    if (refreshMs !== undefined && typeof options.token === 'function') {
      this.#refreshTimer = setInterval(() => {
        this.refreshToken().catch((error: unknown) => emitError(this, asClientError(error), 'client'));
      }, refreshMs);
    }
  }

  /**
   * Read the token again (calling the token function) and hand it to the hub over the open connection. Resolves
   * once the hub accepted it (or at once when disconnected: the next connect sends it); rejects with the hub's
   * code (UNAUTHORIZED, TOKEN_EXPIRED, ...) or TOKEN_FAILED.
   */
  async refreshToken(): Promise<void> {
    let token: string | undefined;
    try {
      token = await this.#connection.resolveToken();
    } catch (error) {
      throw new HubClientError(ClientErrorCode.TOKEN_FAILED, `token function failed: ${String(error)}`, {
        cause: error,
      });
    }
    if (token === undefined || this.#connection.state !== 'connected') return;
    const id = this.#requests.nextId();
    await new Promise<void>((resolve, reject) => {
      this.#requests.track(id, {
        onReply: (reply) => {
          if (reply.type === 'authenticated') resolve();
          else if (reply.type === 'error') {
            reject(new HubClientError(reply.code, reply.message, { details: reply.details }));
          } else reject(new HubClientError(ClientErrorCode.PROTOCOL, `unexpected ${reply.type} in reply to auth`));
        },
        onLost: () => resolve(),
      });
      if (!this.#connection.send({ type: 'auth', id, token })) {
        this.#requests.forget(id);
        resolve();
      }
    });
  }

  /**
   * Seqs `from..until` (inclusive) of a session, read over the hub's HTTP API (`GET /v1/sessions/:id/events`, page by
   * page, with this client's token, from the node of `url`): the events before a subscription that started on a hub
   * snapshot. All of one epoch (`epoch` when given); a session rewritten meanwhile, or a log that ends before
   * `until`, fails with SEQ_OUT_OF_RANGE; a refused page with the hub's code.
   */
  async readEvents(
    sessionId: string,
    from: number,
    until: number,
    options: { epoch?: string } = {},
  ): Promise<EventRange> {
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(until) || from < 0 || until < from - 1) {
      throw new HubClientError('BAD_REQUEST', `readEvents needs 0 <= from <= until + 1, got ${from}..${until}`);
    }
    const { base, token } = await this.#httpAccess();
    return readEventRange({ baseUrl: base, token, sessionId, from, until, ...options });
  }

  get state(): HubClientState {
    return this.#connection.state;
  }

  /**
   * The last state change and why (centrifuge-js style): `{ state, previous, code, reason }`, `code` (`CONNECTING`, `CONNECTED`, `CONNECT_FAILED`,
   * `CONNECTION_LOST`, `HEARTBEAT_TIMEOUT`, `CLIENT_CLOSED`, or the error code that caused it) and `reason`.
   */
  get stateChange(): StateChange {
    return this.#stateChange;
  }

  /** The endpoint of the current (or next) connection attempt. */
  get url(): string {
    return this.#connection.url;
  }

  /**
   * The largest append frame this client sends: its `maxFrameBytes` option, or the hub's own limit when the hub
   * announced a smaller one in `welcome`. Bigger appends fail at once with FRAME_TOO_LARGE.
   */
  get maxFrameBytes(): number {
    return Math.min(this.#maxFrameBytes, this.#connection.hubLimits?.maxFrameBytes ?? Number.POSITIVE_INFINITY);
  }

  /** How long a request (an append, a writer's read of the log) may take by default (ms; Infinity: no limit). */
  get requestTimeoutMs(): number {
    return this.#requestTimeoutMs;
  }

  /** The most events per append the hub announced (undefined before the first `welcome` or from older hubs). */
  get maxEventsPerAppend(): number | undefined {
    return this.#connection.hubLimits?.maxEventsPerAppend;
  }

  /** Appends waiting for an ack (queued while disconnected, or on the wire). */
  get pendingAppends(): number {
    return this.#appender.pending;
  }

  /**
   * Subscribe to a session: from `fromSeq` (default 0), optionally under the `epoch` your copy of the log belongs
   * to, or from a snapshot (`{ resume: subscription.snapshot() }`) kept from an earlier subscription, which seeds
   * the local copy and its messages and continues after its last seq. If the session's data was replaced since
   * (its epoch differs), the subscription emits `reset` and rebuilds from seq 0: two histories are never mixed.
   * Bad options (an unknown one included) throw BAD_REQUEST. One subscription per session per client:
   * subscribing again before closing the first throws ALREADY_SUBSCRIBED.
   */
  subscribe(sessionId: string, options?: SubscribeOptions): Subscription {
    this.#assertOpen();
    const start = subscriptionStart(sessionId, options);
    const presence = checkPresenceRequest((options ?? {}) as Record<string, unknown>, sessionId);
    if (this.#subscriptions.has(sessionId)) {
      throw new HubClientError('ALREADY_SUBSCRIBED', `already subscribed to ${sessionId}`, { sessionId });
    }
    const subscription = new Subscription(this.#link, sessionId, start, presence);
    this.#subscriptions.set(sessionId, subscription);
    subscription.connected();
    return subscription;
  }

  /** This client's open subscription to `sessionId`, if any. */
  subscriptionOf(sessionId: string): Subscription | undefined {
    return this.#subscriptions.get(sessionId);
  }

  /**
   * Append one event or a batch (atomically) and resolve with the committed events. Exactly once: retried with
   * the same idempotency key across reconnects until acknowledged. Rejects with `HubClientError`.
   *
   * Typed strictly: a known event type must carry its data shape (`turn/start` needs `{ turn }`), an extension
   * type JSON data and no surface fields, so a typo is a compile error rather than an INVALID_EVENT at run time.
   * Drafts typed only as `EventDraft` (built dynamically) are accepted too and checked by the hub.
   */
  append<const T extends string>(
    sessionId: string,
    draft: AppendDraftFor<T> & { readonly type: T },
    options?: AppendOptions,
  ): Promise<SessionEvent[]>;
  append<const D extends readonly AppendDraft[]>(
    sessionId: string,
    drafts: D & CheckedDrafts<D>,
    options?: AppendOptions,
  ): Promise<SessionEvent[]>;
  append<const D extends EventDraft | readonly EventDraft[]>(
    sessionId: string,
    drafts: D & RuntimeTypedDrafts<D>,
    options?: AppendOptions,
  ): Promise<SessionEvent[]>;
  append(
    sessionId: string,
    drafts: EventDraft | readonly EventDraft[],
    options: AppendOptions = {},
  ): Promise<SessionEvent[]> {
    if (this.#connection.state === 'closed') return Promise.reject(this.#closedError());
    const list: readonly EventDraft[] = isDraftList(drafts) ? drafts : [drafts];
    return this.#appender.append(sessionId, list, options);
  }

  /**
   * Merge `patch` into the session's metadata (`title`, `labels`; `null` removes one) and resolve with the whole
   * metadata after it; every subscription that follows it (`subscribe(id, { metadata: true })`) hears the change,
   * on every node. Needs `append` on the session. Rejects with INVALID_METADATA (checked before sending, and by the
   * hub), NOT_FOUND (no such session: append to it first), TIMEOUT / NOT_SENT after `requestTimeoutMs`.
   */
  setMetadata(sessionId: string, patch: MetadataPatch): Promise<SessionMetadata> {
    if (this.#connection.state === 'closed') return Promise.reject(this.#closedError());
    const link: MetadataLink = {
      ...this.#link,
      onConnected: (listener) =>
        this.on('state', (state) => {
          if (state === 'connected') listener();
        }),
    };
    return sendMetadataPatch(link, sessionId, patch, this.#requestTimeoutMs);
  }

  /**
   * Redact events of a session (grant `redact`; admins have it): their data is replaced by placeholders of a valid
   * shape, an `audit/redaction` event is appended, and every subscriber is reset onto the redacted log (its
   * subscriptions emit `reset`, then `redacted`). Sent over the hub's HTTP API (the endpoint's `http(s)` twin) with
   * the client's token. Rejects with the hub's code: FORBIDDEN, SEQ_OUT_OF_RANGE (unknown or future seqs),
   * BAD_REQUEST (no seqs, too many, an empty or too long reason); nothing is changed then. A retry is harmless.
   */
  async redact(sessionId: string, seqs: readonly number[], reason: string): Promise<RedactionReply> {
    if (this.#connection.state === 'closed') throw this.#closedError();
    const { base, token } = await this.#httpAccess();
    return requestRedaction(base, token, { sessionId, seqs, reason }, this.#requestTimeoutMs);
  }

  /** The hub's HTTP base (the endpoint's `http(s)` twin) and this client's token, for the calls made over HTTP. */
  async #httpAccess(): Promise<{ base: string; token: string | undefined }> {
    let token: string | undefined;
    try {
      token = await this.#connection.resolveToken();
    } catch (error) {
      throw new HubClientError(ClientErrorCode.TOKEN_FAILED, `token function failed: ${String(error)}`, {
        cause: error,
      });
    }
    return { base: httpBaseOf(this.#connection.url), token };
  }

  /**
   * Fork `sessionId` at `atSeq` (docs/client.md#forks): a new session sharing its events 0..`atSeq`, without copying
   * them. Needs `read` on the source and `append` on the new id. Rejects with FORK_INSIDE_TURN when `atSeq` is inside
   * a turn (unless `repair`), FORK_TARGET_EXISTS, SEQ_OUT_OF_RANGE, FORK_TOO_DEEP, FORBIDDEN, TIMEOUT.
   */
  fork(sessionId: string, atSeq: number, options: ForkOptions = {}): Promise<ForkResult> {
    if (this.#connection.state === 'closed') return Promise.reject(this.#closedError());
    const timeoutMs =
      options.timeoutMs === undefined ? this.#requestTimeoutMs : checkTimeoutMs('timeoutMs', options.timeoutMs);
    const { newId, repair } = options;
    const link = {
      requests: this.#requests,
      send: (message: Parameters<Connection['send']>[0]) => this.#connection.send(message),
      connected: (signal: AbortSignal) => this.#whenConnected(signal),
    };
    const request = { sessionId, atSeq, ...(newId === undefined ? {} : { newId }), ...(repair ? { repair } : {}) };
    return sendFork(link, request, timeoutMs);
  }

  /** Resolves once connected (at once when it is); a caller that gave up (`signal`) leaves no listener behind. */
  #whenConnected(signal: AbortSignal): Promise<void> {
    if (this.#connection.state === 'connected') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const stop = this.on('state', (next) => {
        if (next === 'connected') resolve();
        else if (next === 'closed') reject(this.#closedError());
        else return;
        stop();
      });
      signal.addEventListener('abort', stop, { once: true });
    });
  }

  /** Close the connection and every subscription; pending appends reject with CLOSED. */
  close(): void {
    if (this.#connection.state === 'closed') return;
    this.#connection.close();
  }

  #onState(next: ConnectionState, previous: ConnectionState, cause: StateCause): void {
    this.#stateChange = { ...cause, state: next, previous };
    if (next === 'connected') {
      for (const subscription of [...this.#subscriptions.values()]) subscription.connected();
      this.#appender.connected();
    } else if (previous === 'connected') {
      this.#requests.loseAll();
      for (const subscription of this.#subscriptions.values()) subscription.disconnected();
    }
    if (next === 'closed') {
      clearInterval(this.#refreshTimer);
      this.#requests.loseAll();
      this.#appender.rejectAll();
      for (const subscription of [...this.#subscriptions.values()]) subscription.close();
    }
    this.emit('state', next, previous, this.#stateChange);
    if (next === 'closed') this.removeAllListeners();
  }

  #onMessage(message: ServerMessage): void {
    if ('id' in message && message.id !== undefined && this.#requests.settle(message.id, message)) return;
    switch (message.type) {
      case 'events':
      case 'live':
      case 'reset':
      case 'snapshot':
      case 'presence':
      case 'metadata':
        this.#subscriptions.get(message.sessionId)?.handle(message);
        return;
      case 'error':
        if (message.id === undefined && message.sessionId !== undefined) {
          const subscription = this.#subscriptions.get(message.sessionId);
          if (subscription !== undefined) {
            subscription.handle(message);
            return;
          }
        }
        if (message.id === undefined) {
          emitError(this, new HubClientError(message.code, message.message, { details: message.details }), 'client');
        }
        return;
      default:
        // A late reply to a request that was given up (timed out or superseded): nothing waits for it.
        return;
    }
  }

  #assertOpen(): void {
    if (this.#connection.state === 'closed') throw this.#closedError();
  }

  #closedError(): HubClientError {
    return new HubClientError(ClientErrorCode.CLOSED, 'the client is closed');
  }
}

/**
 * Without an `error` listener, errors go to the console; failed connect attempts only at attempts 1, 2, 4, 8, ...
 * (a client retrying an unreachable hub for hours says so a few dozen times, not thousands).
 */
function consoleWorthy(error: HubClientError): boolean {
  if (error.code !== ClientErrorCode.CONNECT_FAILED) return true;
  const attempt = error.details['attempt'];
  return typeof attempt !== 'number' || (attempt & (attempt - 1)) === 0;
}

function asClientError(error: unknown): HubClientError {
  return error instanceof HubClientError
    ? error
    : new HubClientError(ClientErrorCode.PROTOCOL, String(error), { cause: error });
}

function isDraftList(drafts: EventDraft | readonly EventDraft[]): drafts is readonly EventDraft[] {
  return Array.isArray(drafts);
}
