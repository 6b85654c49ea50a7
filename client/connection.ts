import { CloseCode, HubErrorCode, SUPPORTED_PROTOCOL_VERSIONS } from '../shared/protocol.ts';
import type { AnnouncedLimits, ClientMessage, ServerMessage } from '../shared/protocol.ts';
import { backoffDelay } from '../shared/backoff.ts';
import type { BackoffOptions } from '../shared/backoff.ts';
import { withTimeout } from '../shared/timeout.ts';
import { Emitter } from './emitter.ts';
import { ClientErrorCode, HubClientError } from './errors.ts';
import type { RequestTracker } from './requests.ts';
import { SOCKET_OPEN } from './transport.ts';
import type { SocketCloseEvent, SocketMessageEvent, WebSocketConstructor, WebSocketLike } from './transport.ts';
import { decodeServerMessage, encodeRequest } from './wire.ts';
import { batchSendsOfThisTurn } from '../shared/send-batching.ts';
import { connectFailure } from './connect-failure.ts';
import type { ConnectFailure, StateCause } from './connect-failure.ts';

/** `connecting`: opening a socket and saying hello; `connected`: the hub welcomed us; `disconnected`: waiting to
 * reconnect; `closed`: for good (`close()` or a final close code). */
export type ConnectionState = 'connecting' | 'connected' | 'disconnected' | 'closed';

/** A bearer token, or a function called before every (re)connect that returns the current one. */
export type TokenSource = string | (() => string | Promise<string>);

export interface ConnectionOptions {
  /** Hub endpoints; each reconnect moves on to the next one (round robin). */
  readonly urls: readonly string[];
  readonly token?: TokenSource | undefined;
  readonly reconnect?: BackoffOptions | undefined;
  readonly WebSocket: WebSocketConstructor;
  /** Ping the hub after this long without a frame from it (ms). */
  readonly heartbeatIntervalMs: number;
  /** Drop the connection after this long without a frame from it (ms). */
  readonly heartbeatTimeoutMs: number;
  /** Give up an attempt (socket open + hello) after this long (ms). */
  readonly connectTimeoutMs: number;
  readonly requests: RequestTracker;
  readonly onListenerError?: (error: unknown) => void;
}

export type ConnectionEvents = {
  state: [next: ConnectionState, previous: ConnectionState, cause: StateCause];
  message: [message: ServerMessage];
  /** The connection was lost (before `state` turns `disconnected`); `code` is the close code, if the hub sent one. */
  lost: [code: number | undefined];
  error: [error: HubClientError];
};

/** Hello refusals that no retry can cure. */
const FINAL_HELLO_CODES: ReadonlySet<HubErrorCode> = new Set([
  HubErrorCode.UNSUPPORTED_VERSION,
  HubErrorCode.BAD_REQUEST,
  HubErrorCode.PARSE_ERROR,
]);
/** Hello refusals that only another token can cure: final unless the token comes from a function. */
const AUTH_HELLO_CODES: ReadonlySet<HubErrorCode> = new Set([
  HubErrorCode.UNAUTHORIZED,
  HubErrorCode.TOKEN_EXPIRED,
  HubErrorCode.FORBIDDEN,
]);

/**
 * One WebSocket to the hub at a time, kept open: hello/welcome, heartbeat, reconnect with full-jitter backoff
 * (immediately after GOING_AWAY), stop on final close codes. Exactly one attempt or wait is in flight at a time.
 */
export class Connection extends Emitter<ConnectionEvents> {
  readonly #options: ConnectionOptions;
  #hubLimits: AnnouncedLimits | undefined;
  #state: ConnectionState = 'connecting';
  #started = false;
  #socket: WebSocketLike | undefined;
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #lastFrameAt = 0;
  #helloId = -1;
  #urlIndex = 0;
  /** What the current socket's `error` event carried (the cause of a failed attempt, where the platform tells). */
  #socketError: unknown;
  #cause: StateCause = { code: 'CONNECTING', reason: 'the client was created' };

  constructor(options: ConnectionOptions) {
    super(options.onListenerError);
    this.#options = options;
  }

  get state(): ConnectionState {
    return this.#state;
  }

  /** Why the state last changed. */
  get stateCause(): StateCause {
    return this.#cause;
  }

  /** The endpoint of the current (or next) attempt. */
  get url(): string {
    const { urls } = this.#options;
    return urls[this.#urlIndex % urls.length]!;
  }

  /** Start connecting (once; later reconnects are automatic). The state is `connecting` from construction on. */
  start(): void {
    if (this.#started || this.#state === 'closed') return;
    this.#started = true;
    void this.#open();
  }

  /** Send a request on the welcomed connection; false when there is none (the caller retries after reconnect). */
  send(message: ClientMessage): boolean {
    return this.sendFrame(encodeRequest(message));
  }

  /** `send` for a request already encoded as a binary frame. */
  sendFrame(frame: Uint8Array): boolean {
    const socket = this.#socket;
    if (this.#state !== 'connected' || socket === undefined || socket.readyState !== SOCKET_OPEN) return false;
    try {
      batchSendsOfThisTurn(socket);
      socket.send(frame);
      return true;
    } catch (error) {
      const failure = new HubClientError(ClientErrorCode.PROTOCOL, `send failed: ${String(error)}`, { cause: error });
      this.#emitError(failure);
      this.#drop(socket, { code: failure.code, reason: failure.message });
      return false;
    }
  }

  /** The limits the hub announced in the last `welcome` (undefined before one, or from a hub that announces none). */
  get hubLimits(): AnnouncedLimits | undefined {
    return this.#hubLimits;
  }

  /** Close for good. */
  close(cause: StateCause = { code: 'CLIENT_CLOSED', reason: 'close() was called' }): void {
    if (this.#state === 'closed') return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const socket = this.#socket;
    this.#detach();
    socket?.close(CloseCode.NORMAL, 'client closed');
    this.#setState('closed', cause);
    this.removeAllListeners();
  }

  async #open(): Promise<void> {
    if (this.#state === 'closed') return;
    this.#timer = undefined;
    this.#setState('connecting', {
      code: 'CONNECTING',
      reason: `connecting to ${this.url} (attempt ${this.#attempt + 1})`,
    });
    let token: string | undefined;
    try {
      token = await this.#tokenWithin(this.#options.connectTimeoutMs);
    } catch (error) {
      if (this.#state !== 'connecting') return; // closed while the token was fetched: stay closed
      const failure = new HubClientError(ClientErrorCode.TOKEN_FAILED, `token function failed: ${String(error)}`);
      this.#emitError(failure);
      this.#scheduleReconnect(undefined, { code: failure.code, reason: failure.message });
      return;
    }
    if (this.#state !== 'connecting') return;
    let socket: WebSocketLike;
    try {
      socket = new this.#options.WebSocket(this.url);
    } catch (error) {
      // The constructor throws only for a URL it cannot use (bad syntax or scheme): retrying cannot help.
      const message = `cannot open a WebSocket to ${this.url}: ${String(error)}`;
      const details = { url: this.url };
      this.#fail(new HubClientError(ClientErrorCode.CONNECTION_REFUSED, message, { cause: error, details }));
      return;
    }
    this.#socket = socket;
    this.#socketError = undefined;
    socket.binaryType = 'arraybuffer';
    const { connectTimeoutMs } = this.#options;
    this.#timer = setTimeout(() => {
      const reason = `no welcome from the hub within ${connectTimeoutMs} ms`;
      this.#drop(socket, { code: 'CONNECT_FAILED', reason }, { kind: 'timeout', reason });
    }, connectTimeoutMs);
    socket.onopen = () => {
      this.#helloId = this.#options.requests.nextId();
      const hello = { type: 'hello', id: this.#helloId, versions: SUPPORTED_PROTOCOL_VERSIONS } as const;
      socket.send(encodeRequest(token === undefined ? hello : { ...hello, token }));
    };
    socket.onmessage = (event: SocketMessageEvent) => this.#onFrame(socket, event.data);
    socket.onclose = (event: SocketCloseEvent) => {
      if (this.#socket === socket) this.#lost(event.code, event.reason);
    };
    socket.onerror = (event: unknown) => {
      // Always followed by `close`, which decides what happens next; the error tells why (where the platform says).
      if (this.#socket === socket) this.#socketError = event;
    };
  }

  /** The current token: the string given, or what the token function returns now. */
  async resolveToken(): Promise<string | undefined> {
    const source = this.#options.token;
    if (source === undefined || typeof source === 'string') return source;
    const token = await source();
    if (typeof token !== 'string') throw new TypeError('the token function must return a string');
    return token;
  }

  /** `resolveToken`, failing when the token function takes longer than `ms` (it may hang on a dead auth server). */
  #tokenWithin(ms: number): Promise<string | undefined> {
    return withTimeout(this.resolveToken(), ms, () => new Error(`no token within ${ms} ms`));
  }

  /** A token function may return another token next time: auth refusals are then worth a retry. */
  #tokenCanChange(): boolean {
    return typeof this.#options.token === 'function';
  }

  #onFrame(socket: WebSocketLike, data: unknown): void {
    if (this.#socket !== socket) return;
    this.#lastFrameAt = Date.now();
    let message: ServerMessage | undefined;
    try {
      message = decodeServerMessage(data);
    } catch (error) {
      const failure = error as HubClientError;
      this.#emitError(failure);
      this.#drop(socket, { code: failure.code, reason: failure.message });
      return;
    }
    // A message type this SDK does not know (from a newer hub): ignored, as the protocol asks of clients.
    if (message === undefined) return;
    if (this.#state === 'connecting') {
      this.#onHandshake(socket, message);
      return;
    }
    this.emit('message', message);
  }

  #onHandshake(socket: WebSocketLike, message: ServerMessage): void {
    if (message.type === 'welcome' && message.id === this.#helloId) {
      this.#hubLimits = message.limits;
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#attempt = 0;
      this.#startHeartbeat(socket);
      this.#setState('connected', { code: 'CONNECTED', reason: `welcomed by ${this.url}` });
    } else if (message.type === 'error') {
      const error = new HubClientError(message.code, `hub refused the connection: ${message.message}`, {
        details: message.details,
      });
      if (FINAL_HELLO_CODES.has(message.code) || (AUTH_HELLO_CODES.has(message.code) && !this.#tokenCanChange())) {
        this.#fail(error);
      } else {
        this.#emitError(error);
        this.#drop(socket, { code: error.code, reason: error.message });
      }
    } else {
      const failure = new HubClientError(ClientErrorCode.PROTOCOL, `unexpected ${message.type} before welcome`);
      this.#emitError(failure);
      this.#drop(socket, { code: failure.code, reason: failure.message });
    }
  }

  #startHeartbeat(socket: WebSocketLike): void {
    const { heartbeatIntervalMs, heartbeatTimeoutMs, requests } = this.#options;
    this.#heartbeat = setInterval(
      () => {
        const silentFor = Date.now() - this.#lastFrameAt;
        if (silentFor >= heartbeatTimeoutMs) {
          this.#drop(socket, { code: 'HEARTBEAT_TIMEOUT', reason: `no frame from the hub for ${silentFor} ms` });
        } else if (silentFor >= heartbeatIntervalMs) this.send({ type: 'ping', id: requests.nextId() });
      },
      Math.max(10, Math.min(heartbeatIntervalMs, heartbeatTimeoutMs) / 2),
    );
  }

  /**
   * Stop listening to `socket` and end it without waiting for a closing handshake (it may be dead). `failure`: a
   * failed connection attempt, reported as CONNECT_FAILED.
   */
  #drop(socket: WebSocketLike, cause: StateCause, failure?: ConnectFailure): void {
    if (this.#socket !== socket) return;
    this.#detach();
    const terminate = (socket as { terminate?: () => void }).terminate;
    if (typeof terminate === 'function') terminate.call(socket);
    else socket.close(CloseCode.NORMAL, 'client dropped the connection');
    this.#lost(undefined, cause.reason, cause, failure);
  }

  #detach(): void {
    const socket = this.#socket;
    if (socket === undefined) return;
    this.#socket = undefined;
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    socket.onopen = null;
    socket.onmessage = null;
    socket.onclose = null;
    socket.onerror = () => {
      // A late error from a socket we already gave up on.
    };
  }

  /**
   * The socket is gone: `cause` says why when the client dropped it; else (the socket closed) an attempt that was
   * never welcomed is a CONNECT_FAILED, reported with what the socket said, and a welcomed one is CONNECTION_LOST.
   */
  #lost(code: number | undefined, reason: string, cause?: StateCause, failure?: ConnectFailure): void {
    const attempt = this.#state === 'connecting';
    const socketError = this.#socketError;
    this.#detach();
    if (this.#state === 'closed') return;
    this.emit('lost', code);
    const final = code === CloseCode.PROTOCOL_ERROR || (code === CloseCode.POLICY_VIOLATION && !this.#tokenCanChange());
    if (final) {
      const error = new HubClientError(ClientErrorCode.CONNECTION_REFUSED, `hub closed the connection: ${reason}`, {
        details: { closeCode: code, reason, url: this.url },
      });
      this.#fail(error);
      return;
    }
    if (cause !== undefined) {
      this.#scheduleReconnect(code, cause, failure);
    } else if (attempt) {
      const why = connectFailure(socketError, code, reason);
      this.#scheduleReconnect(code, { code: 'CONNECT_FAILED', reason: why.reason }, why);
    } else {
      const said = reason === '' ? '' : `: ${reason}`;
      this.#scheduleReconnect(code, {
        code: 'CONNECTION_LOST',
        reason: `the connection to ${this.url} closed (${code ?? 'no close code'}${said})`,
      });
    }
  }

  /**
   * Wait (backoff) and try again, at the next URL. A failed attempt (`failure`) is emitted as `error`
   * CONNECT_FAILED naming the URL, the cause and when the next attempt is made.
   */
  #scheduleReconnect(code: number | undefined, cause: StateCause, failure?: ConnectFailure): void {
    if (this.#state === 'closed') return;
    clearTimeout(this.#timer);
    const url = this.url;
    this.#urlIndex = (this.#urlIndex + 1) % this.#options.urls.length;
    // A welcomed connection whose node goes away moves on at once; a node that refuses new connections with
    // GOING_AWAY (it is shutting down) gets the usual backoff, so the client never spins.
    const immediate = code === CloseCode.GOING_AWAY && this.#state === 'connected';
    const delay = immediate ? 0 : backoffDelay(this.#attempt, this.#options.reconnect);
    const attempt = ++this.#attempt;
    const retry = `retrying in ${delay} ms${this.#options.urls.length > 1 ? ` with ${this.url}` : ''}`;
    this.#setState('disconnected', { code: cause.code, reason: cause.reason, retryInMs: delay, retryUrl: this.url });
    this.#timer = setTimeout(() => void this.#open(), delay);
    if (failure !== undefined) {
      const { kind, status, causeCode } = failure;
      const message = `cannot connect to ${url}: ${failure.reason} (attempt ${attempt}; ${retry})`;
      this.#emitError(
        new HubClientError(ClientErrorCode.CONNECT_FAILED, message, {
          details: {
            url,
            kind,
            attempt,
            retryInMs: delay,
            willRetry: true,
            ...(status === undefined ? {} : { status }),
            ...(causeCode === undefined ? {} : { causeCode }),
          },
        }),
      );
    }
  }

  /** A final failure: report it and close. */
  #fail(error: HubClientError): void {
    this.#emitError(error);
    this.close({ code: error.code, reason: error.message });
  }

  #emitError(error: HubClientError): void {
    this.emit('error', error);
  }

  #setState(next: ConnectionState, cause: StateCause): void {
    const previous = this.#state;
    if (previous === next) return;
    this.#state = next;
    this.#cause = cause;
    this.emit('state', next, previous, cause);
  }
}
