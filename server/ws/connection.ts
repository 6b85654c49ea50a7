import type { RawData, WebSocket } from 'ws';
import {
  CloseCode,
  HubErrorCode,
  type AppendRequest,
  type ClientMessage,
  type HelloRequest,
  type ServerMessage,
} from '../../shared/protocol.ts';
import { decodeFrame, encodeFrame, encodeTextFrame } from '../../shared/codec.ts';
import { adoptDecodedJson } from '../../shared/freeze-json.ts';
import { parseClientMessage, ProtocolParseError } from '../../shared/protocol-parse.ts';
import { AppendFences } from '../append/fence.ts';
import type { AppendOutcome, AppendPipeline } from '../append/pipeline.ts';
import type { ForkService } from '../append/fork-session.ts';
import { measureAppend } from '../append/append-metrics.ts';
import { ConnectionGuard, tokenExpiredError, type GuardedConnection } from '../limits/connection-guard.ts';
import type { PrincipalRateLimits } from '../limits/principal-rate.ts';
import type { HubAction, HubAuth, HubPrincipal, RequestInfo } from '../auth/auth-seam.ts';
import type { HubLimits } from '../limits/limits.ts';
import {
  ConnectionSubscriptions,
  type SubscriptionsContext,
  type SubscriptionsOwner,
} from './connection-subscriptions.ts';
import { errorMessage, HubError, toHubError } from '../hub-error.ts';
import { patchMetadata } from '../append/metadata-patch.ts';
import type { MetadataStore } from '../store/metadata-store.ts';
import type { EventsFrame } from '../fanout/events-frame.ts';
import type { Logger } from '../logger.ts';
import type { HubMetrics } from '../metrics.ts';
import { batchSendsOfThisTurn } from '../../shared/send-batching.ts';
import { ackFields } from '../append/outcome.ts';

/** The connection of each open socket, for the socket listeners every connection shares. */
const sockets = new WeakMap<WebSocket, Connection>();

/** What every connection of a node shares (made once by the hub): channels, pipeline, auth, limits, admissions. */
export interface ConnectionContext extends SubscriptionsContext {
  readonly logger: Logger;
  readonly metrics: HubMetrics;
  readonly pipeline: AppendPipeline;
  /** Where `setMetadata` writes and `subscribe({ metadata: true })` reads. */
  readonly metadata: MetadataStore;
  readonly auth: HubAuth;
  readonly nodeName: string;
  readonly protocolVersions: readonly number[];
  readonly helloTimeoutMs: number;
  /** Rate, expiry and slow-consumer limits (see `ConnectionGuard`). */
  readonly limits: HubLimits;
  /** The node's per-principal append rate, shared with the HTTP API (none: only the per-connection rate). */
  readonly principalRate?: PrincipalRateLimits;
  /** Makes a fork (`fork` message; server/append/fork-session.ts) as the connection's principal (grants, createdBy). */
  readonly fork: ForkService;
  /** It passed `hello`: count it in `maxConnections`; false when full (then TOO_MANY_CONNECTIONS, close 1013). */
  admit(connection: Connection): boolean;
  closed(connection: Connection): void; // the connection closed (whether admitted or not)
}

/**
 * The upgrade request's token (header or query), read once at the upgrade and used at `hello`: the token, none, or
 * the error of a malformed one (thrown at `hello`, even when the hello carries a token).
 */
export type UpgradeToken = string | undefined | { readonly malformed: unknown };

/**
 * One WebSocket client. The first message must be `hello` (within `helloTimeoutMs`); the reply format follows
 * the hello frame (binary → msgpack, text → JSON). Requests are served concurrently and every reply echoes `id`.
 * A frame that cannot be decoded or parsed gets an error reply (and, before hello, a close with 1002).
 *
 * An idle connection is what a node holds thousands of, so its state is kept small: the node-wide dependencies
 * are one shared `ConnectionContext`, the connection is itself the sink of its subscriptions, the socket's
 * listeners are shared functions, and what only some connections need (a logger with its bindings, the hello
 * timer once hello is done) is created lazily or dropped.
 */
export class Connection implements SubscriptionsOwner, GuardedConnection {
  #state: 'hello' | 'authenticating' | 'ready' | 'closed' = 'hello';
  #format: 'binary' | 'text' = 'binary';
  #helloDone: Promise<boolean> | undefined;
  #principal: HubPrincipal | undefined;
  #helloTimer: NodeJS.Timeout | undefined;
  #upgradeToken: UpgradeToken;
  /** The connection's child logger (with the remote address), made on first use. */
  #log: Logger | undefined;
  readonly #ws: WebSocket;
  readonly #context: ConnectionContext;
  readonly #request: RequestInfo;
  readonly #subscriptions: ConnectionSubscriptions;
  readonly #guard: ConnectionGuard;
  /** Keeps pipelined appends in order across retry-later failures (made on the first append). */
  #fences: AppendFences | undefined;

  constructor(ws: WebSocket, context: ConnectionContext, request: RequestInfo, upgradeToken: UpgradeToken) {
    this.#ws = ws;
    this.#context = context;
    this.#request = request;
    this.#upgradeToken = upgradeToken;
    this.#guard = new ConnectionGuard(ws, context.limits, this);
    this.#subscriptions = new ConnectionSubscriptions(context, this);
    this.#helloTimer = setTimeout(Connection.#helloTimeout, context.helloTimeoutMs, this);
    this.#helloTimer.unref();
    sockets.set(ws, this);
    ws.on('message', Connection.#onMessage);
    ws.on('close', Connection.#onSocketClose);
    ws.on('error', Connection.#onSocketError);
  }

  // The socket's listeners and the hello timeout: one function each for every connection (`this` is the socket).
  static #onMessage(this: WebSocket, data: RawData, isBinary: boolean): void {
    const connection = sockets.get(this);
    if (connection === undefined) return;
    try {
      connection.#onFrame(data, isBinary);
    } catch (error) {
      connection.#fail(error);
    }
  }

  static #onSocketClose(this: WebSocket): void {
    const connection = sockets.get(this);
    if (connection !== undefined) connection.#onClose();
  }

  static #onSocketError(this: WebSocket, error: Error): void {
    sockets.get(this)?.logger.debug({ err: error }, 'socket error');
  }

  static #helloTimeout(connection: Connection): void {
    connection.#protocolError(undefined, 'no hello received in time');
  }

  /** The connection's logger: the node's, bound to the remote address (made on first use). */
  get logger(): Logger {
    return (this.#log ??= this.#context.logger.child({ remote: this.#request.remoteAddress }));
  }

  /** Who the connection is (`anonymous` on an open hub, and before `hello`). */
  get subject(): string {
    return this.#principal?.subject ?? 'anonymous';
  }

  /** The connection's outbound queue is over its bound (a slow consumer). */
  get behind(): boolean {
    return this.#guard.gate.behind;
  }

  /** Resolves once the outbound queue is under its bound again (or the connection is closing). */
  whenDrained(): Promise<void> {
    return this.#guard.gate.whenDrained();
  }

  /** The connection is closing (or cut as a slow consumer): nothing sent reaches the client any more. */
  get closing(): boolean {
    return this.#guard.gate.closed || this.#ws.readyState !== this.#ws.OPEN;
  }

  /** Close the socket (e.g. GOING_AWAY on shutdown). */
  close(code: number, reason: string): void {
    if (this.#ws.readyState === this.#ws.OPEN || this.#ws.readyState === this.#ws.CONNECTING) {
      this.#ws.close(code, reason);
    }
  }

  /** Force the socket shut (after a close handshake that did not finish). */
  terminate(): void {
    this.#ws.terminate();
  }

  /** The guard: the token expired and no refresh came: end every subscription with TOKEN_EXPIRED. */
  tokenExpired(): void {
    try {
      this.#endSubscriptions(tokenExpiredError());
    } catch (error) {
      this.#fail(error);
    }
  }

  /** The guard closed the connection for a limit. */
  closedByLimit(code: number): void {
    this.#context.metrics.closes.inc({ code: String(code) });
    this.logger.warn({ code, subject: this.#principal?.subject }, 'connection closed by a limit');
  }

  /** The guard saw a new highest outbound buffer on this connection. */
  bufferedPeak(bytes: number): void {
    this.#context.metrics.bufferedPeak(bytes);
  }

  send(message: ServerMessage): void {
    this.sendWithin(message, Number.POSITIVE_INFINITY);
  }

  /** Send `message` only if its frame (in this connection's format) is at most `maxBytes`; false when it is not. */
  sendWithin(message: ServerMessage, maxBytes: number): boolean {
    if (this.#ws.readyState !== this.#ws.OPEN) return true;
    const frame = this.#format === 'binary' ? encodeFrame(message) : encodeTextFrame(message);
    const bytes = frameBytes(frame);
    if (bytes > maxBytes) return false;
    batchSendsOfThisTurn(this.#ws);
    this.#ws.send(frame);
    this.#context.metrics.hot.framesSent++;
    this.#guard.gate.noteSent(bytes);
    return true;
  }

  /** Send an `events` frame (a live batch's shared frame, or a catch-up page). */
  sendBatch(batch: EventsFrame): void {
    if (this.#ws.readyState !== this.#ws.OPEN) return;
    batchSendsOfThisTurn(this.#ws);
    const frame = this.#format === 'binary' ? batch.binary() : batch.text();
    this.#ws.send(frame);
    this.#context.metrics.hot.framesSent++;
    this.#guard.gate.noteSent(frameBytes(frame));
  }

  #sendError(error: HubError, id?: number, sessionId?: string): void {
    this.#context.metrics.errors.inc({ code: error.code });
    if (error.code === HubErrorCode.INTERNAL) this.logger.error({ err: error.cause ?? error }, 'internal error');
    else this.logger.debug({ code: error.code, message: error.message }, 'error reply');
    this.send(errorMessage(error, id, sessionId));
  }

  #onFrame(data: RawData, isBinary: boolean): void {
    if (this.#state === 'closed') return;
    const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    if (this.#state === 'hello') this.#format = isBinary ? 'binary' : 'text';
    let message: ClientMessage;
    try {
      message = parseClientMessage(decodeFrame(isBinary ? bytes : bytes.toString('utf8')));
    } catch (error) {
      const id = error instanceof ProtocolParseError ? error.id : undefined;
      if (this.#state === 'hello') this.#protocolError(id, toHubError(error).message, toHubError(error));
      else this.#sendError(toHubError(error), id);
      return;
    }
    if (this.#state === 'hello') {
      if (message.type !== 'hello') {
        this.#protocolError(message.id, `the first message must be hello, not ${message.type}`);
        return;
      }
      this.#state = 'authenticating';
      // Frames that arrive meanwhile wait for it; once it settled (ready or closed) nothing needs it any more.
      this.#helloDone = this.#hello(message).then(
        (ok) => {
          this.#helloDone = undefined;
          return ok;
        },
        (error: unknown) => {
          this.#helloDone = undefined;
          this.#fail(error);
          return false;
        },
      );
      return;
    }
    if (this.#state === 'authenticating') {
      this.#keep((this.#helloDone ?? Promise.resolve(false)).then((ok) => ok && this.#dispatch(message)));
      return;
    }
    this.#dispatch(message);
  }

  #dispatch(message: ClientMessage): void {
    if (this.#state !== 'ready') return;
    const sessionId = 'sessionId' in message ? message.sessionId : undefined;
    this.#keep(
      this.#handle(message).catch((error: unknown) => this.#sendError(toHubError(error), message.id, sessionId)),
    );
  }

  /** Every promise the connection starts ends here: a failure nobody handled closes this socket, never the process. */
  #keep(work: Promise<unknown>): void {
    work.catch((error: unknown) => this.#fail(error));
  }

  /** A bug or an unexpected failure while serving this connection: log it, close with 1011 (INTERNAL_ERROR). */
  #fail(error: unknown): void {
    try {
      this.logger.error({ err: error }, 'connection failed; closing it');
      this.#context.metrics.errors.inc({ code: HubErrorCode.INTERNAL });
      this.close(CloseCode.INTERNAL_ERROR, 'internal error');
    } catch {
      this.terminate();
    }
    this.#state = 'closed';
  }

  async #handle(message: ClientMessage): Promise<void> {
    switch (message.type) {
      case 'hello':
        throw new HubError(HubErrorCode.BAD_REQUEST, 'hello was already received');
      case 'ping':
        this.send({ type: 'pong', id: message.id });
        return;
      case 'auth':
        this.#setPrincipal(await this.#context.auth.authenticate(message.token, this.#request));
        this.send({ type: 'authenticated', id: message.id });
        await this.#recheckSubscriptions();
        return;
      case 'subscribe':
        // Registered at once (so an unsubscribe right behind it finds it), started once authorized.
        await this.#subscriptions.subscribe(message, this.#authorize('read', message.sessionId));
        return;
      case 'unsubscribe':
        this.#subscriptions.unsubscribe(message.sessionId);
        this.send({ type: 'unsubscribed', id: message.id, sessionId: message.sessionId });
        return;
      case 'append':
        await this.#append(message);
        return;
      case 'setMetadata': {
        // A metadata write counts against the append rates (it is a store write and a notice to every node).
        this.#guard.checkAppend();
        this.#context.principalRate?.checkAppend(this.#principal, this.#request.remoteAddress);
        await this.#authorize('append', message.sessionId);
        const metadata = await patchMetadata(this.#context.metadata, message.sessionId, message.patch);
        this.send({ type: 'metadata', id: message.id, sessionId: message.sessionId, metadata });
        return;
      }
      case 'fork': {
        this.#guard.checkAppend();
        this.#context.principalRate?.checkAppend(this.#principal, this.#request.remoteAddress);
        const by = this.#principal?.subject ?? '';
        const outcome = await this.#context.fork(message, (action, id) => this.#authorize(action, id), by);
        this.send({ type: 'forked', id: message.id, ...outcome });
        return;
      }
    }
  }

  async #append(message: AppendRequest): Promise<void> {
    let outcome: AppendOutcome;
    const fences = (this.#fences ??= new AppendFences());
    try {
      fences.admit(message.sessionId, message.idempotencyKey, message.after);
      this.#guard.checkAppend();
      this.#context.principalRate?.checkAppend(this.#principal, this.#request.remoteAddress);
      // Authorize and enqueue in arrival order (an async authorize must not reorder pipelined appends).
      const authorized = this.#authorize('append', message.sessionId);
      // Import mode (events keep the given commit time) rewrites history's timeline: admins only.
      const ready =
        message.time === undefined ? authorized : authorized.then(() => this.#authorize('admin', message.sessionId));
      const { metrics, pipeline } = this.#context;
      const keyOwner = this.#principal?.subject ?? '';
      // The events were decoded from this frame and nothing else holds them: validation freezes them in place.
      for (const event of message.events) adoptDecodedJson(event.data);
      outcome = await measureAppend(metrics, () => pipeline.append({ ...message, keyOwner }, ready));
    } catch (error) {
      fences.failed(message.sessionId, message.idempotencyKey, error);
      throw error;
    }
    this.send({ type: 'ack', id: message.id, ...ackFields(outcome) });
  }

  async #authorize(action: HubAction, sessionId: string): Promise<void> {
    const principal = this.#principal;
    if (principal === undefined) throw new HubError(HubErrorCode.UNAUTHORIZED, 'not authenticated');
    if (!(await this.#context.auth.authorize(principal, action, sessionId))) {
      throw new HubError(HubErrorCode.FORBIDDEN, `${principal.subject} may not ${action} ${sessionId}`);
    }
  }

  async #hello(message: HelloRequest): Promise<boolean> {
    clearTimeout(this.#helloTimer);
    this.#helloTimer = undefined;
    const shared = message.versions.filter((version) => this.#context.protocolVersions.includes(version));
    if (shared.length === 0) {
      const supported = this.#context.protocolVersions.join(',');
      const error = new HubError(HubErrorCode.UNSUPPORTED_VERSION, `this hub speaks protocol ${supported}`, {
        supported,
      });
      this.#protocolError(message.id, error.message, error);
      return false;
    }
    try {
      const upgradeToken = this.#upgradeToken;
      this.#upgradeToken = undefined;
      // A malformed Authorization header fails even with a hello token.
      if (typeof upgradeToken === 'object') throw upgradeToken.malformed;
      this.#setPrincipal(await this.#context.auth.authenticate(message.token ?? upgradeToken, this.#request));
    } catch (error) {
      this.#sendError(toHubError(error), message.id);
      this.close(CloseCode.POLICY_VIOLATION, 'authentication failed');
      this.#state = 'closed';
      return false;
    }
    if (this.#state !== 'authenticating') return false;
    if (!this.#context.admit(this)) {
      const error = new HubError(HubErrorCode.TOO_MANY_CONNECTIONS, 'this hub node is at its connection limit');
      this.#sendError(error, message.id);
      this.close(CloseCode.TRY_AGAIN_LATER, 'too many connections');
      this.#state = 'closed';
      return false;
    }
    this.#state = 'ready';
    const { maxFrameBytes, maxEventsPerAppend, maxEventBytes } = this.#context.limits;
    this.send({
      type: 'welcome',
      id: message.id,
      version: shared.reduce((highest, version) => Math.max(highest, version)),
      node: this.#context.nodeName,
      limits: { maxFrameBytes, maxEventsPerAppend, maxEventBytes },
    });
    return true;
  }

  #setPrincipal(principal: HubPrincipal): void {
    this.#principal = this.#guard.setPrincipal(principal);
  }

  /** End every subscription with `error` (e.g. TOKEN_EXPIRED), telling the client which sessions ended. */
  #endSubscriptions(error: HubError, sessionIds = this.#subscriptions.sessionIds): void {
    for (const sessionId of sessionIds) {
      this.#subscriptions.unsubscribe(sessionId);
      this.#sendError(error, undefined, sessionId);
    }
  }

  /** After a token refresh: end the subscriptions the new token no longer covers (FORBIDDEN). */
  async #recheckSubscriptions(): Promise<void> {
    for (const sessionId of this.#subscriptions.sessionIds) {
      try {
        await this.#authorize('read', sessionId);
      } catch (error) {
        if (this.#subscriptions.sessionIds.includes(sessionId)) this.#endSubscriptions(toHubError(error), [sessionId]);
      }
    }
  }

  #protocolError(id: number | undefined, reason: string, error?: HubError): void {
    this.#sendError(error ?? new HubError(HubErrorCode.BAD_REQUEST, reason), id);
    this.close(CloseCode.PROTOCOL_ERROR, reason.slice(0, 120));
    this.#state = 'closed';
  }

  #onClose(): void {
    clearTimeout(this.#helloTimer);
    this.#helloTimer = undefined;
    this.#state = 'closed';
    this.#guard.dispose();
    this.#subscriptions.closeAll();
    sockets.delete(this.#ws);
    this.#context.closed(this);
  }
}

/** Bytes of a frame's payload (what the outbound gate counts as sent). */
function frameBytes(frame: string | Uint8Array): number {
  return typeof frame === 'string' ? Buffer.byteLength(frame) : frame.byteLength;
}
