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
import { measureAppend } from '../append/append-metrics.ts';
import { ConnectionGuard, tokenExpiredError } from '../limits/connection-guard.ts';
import type { PrincipalRateLimits } from '../limits/principal-rate.ts';
import type { HubAction, HubAuth, HubLimits, HubPrincipal, RequestInfo } from '../config.ts';
import { ConnectionSubscriptions, type ConnectionSubscriptionsDeps } from './connection-subscriptions.ts';
import { errorMessage, HubError, toHubError } from '../hub-error.ts';
import type { EventsFrame } from '../fanout/events-frame.ts';
import type { Logger } from '../logger.ts';
import type { HubMetrics } from '../metrics.ts';
import { batchSendsOfThisTurn } from '../../shared/send-batching.ts';

export interface ConnectionDeps extends Omit<ConnectionSubscriptionsDeps, 'sink' | 'logger' | 'subject'> {
  readonly logger: Logger;
  readonly metrics: HubMetrics;
  readonly pipeline: AppendPipeline;
  readonly auth: HubAuth;
  readonly nodeName: string;
  readonly protocolVersions: readonly number[];
  readonly helloTimeoutMs: number;
  /** Rate, expiry and slow-consumer limits (see `ConnectionGuard`). */
  readonly limits: HubLimits;
  readonly request: RequestInfo;
  /** The upgrade request's token (header or query), read at `hello`; throws on a malformed one. */
  readonly upgradeToken: () => string | undefined;
  /** The node's per-principal append rate, shared with the HTTP API (none: only the per-connection rate). */
  readonly principalRate?: PrincipalRateLimits;
  /**
   * The connection completed `hello` (authenticated): count it against the node's `maxConnections`. False when the
   * node is full (the connection is then refused with TOO_MANY_CONNECTIONS and closed 1013).
   */
  readonly admit: () => boolean;
  readonly onClose: (connection: Connection) => void;
}

/**
 * One WebSocket client. The first message must be `hello` (within `helloTimeoutMs`); the reply format follows
 * the hello frame (binary → msgpack, text → JSON). Requests are served concurrently and every reply echoes `id`.
 * A frame that cannot be decoded or parsed gets an error reply (and, before hello, a close with 1002).
 */
export class Connection {
  #state: 'hello' | 'authenticating' | 'ready' | 'closed' = 'hello';
  #format: 'binary' | 'text' = 'binary';
  #helloDone: Promise<boolean> = Promise.resolve(false);
  #principal: HubPrincipal | undefined;
  readonly #helloTimer: NodeJS.Timeout;
  readonly #ws: WebSocket;
  readonly #deps: ConnectionDeps;
  readonly #log: Logger;
  readonly #subscriptions: ConnectionSubscriptions;
  readonly #guard: ConnectionGuard;
  /** Keeps pipelined appends in order across retry-later failures. */
  readonly #fences = new AppendFences();

  constructor(ws: WebSocket, deps: ConnectionDeps) {
    this.#ws = ws;
    this.#deps = deps;
    this.#log = deps.logger.child({ remote: deps.request.remoteAddress });
    const { metrics } = deps;
    this.#guard = new ConnectionGuard(ws, {
      limits: deps.limits,
      onExpired: () => {
        try {
          this.#endSubscriptions(tokenExpiredError());
        } catch (error) {
          this.#fail(error);
        }
      },
      close: (code, reason) => this.close(code, reason),
      terminate: () => this.terminate(),
      onLimitClose: (code) => {
        metrics.closes.inc({ code: String(code) });
        this.#log.warn({ code, subject: this.#principal?.subject }, 'connection closed by a limit');
      },
      onBufferedPeak: (bytes) => metrics.bufferedPeak(bytes),
    });
    const gate = this.#guard.gate;
    this.#subscriptions = new ConnectionSubscriptions({
      ...deps,
      logger: this.#log,
      subject: () => this.#principal?.subject ?? 'anonymous',
      sink: {
        send: (message) => this.send(message),
        sendBatch: (batch) => this.#sendBatch(batch),
        get behind() {
          return gate.behind;
        },
        whenDrained: () => gate.whenDrained(),
        get closing() {
          return gate.closed || ws.readyState !== ws.OPEN;
        },
      },
    });
    this.#helloTimer = setTimeout(
      () => this.#protocolError(undefined, 'no hello received in time'),
      deps.helloTimeoutMs,
    );
    this.#helloTimer.unref();
    ws.on('message', (data, isBinary) => {
      try {
        this.#onFrame(data, isBinary);
      } catch (error) {
        this.#fail(error);
      }
    });
    ws.on('close', () => this.#onClose());
    ws.on('error', (error) => this.#log.debug({ err: error }, 'socket error'));
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

  send(message: ServerMessage): void {
    if (this.#ws.readyState !== this.#ws.OPEN) return;
    batchSendsOfThisTurn(this.#ws);
    this.#ws.send(this.#format === 'binary' ? encodeFrame(message) : encodeTextFrame(message));
    this.#deps.metrics.hot.framesSent++;
    this.#guard.gate.noteSent();
  }

  #sendBatch(batch: EventsFrame): void {
    if (this.#ws.readyState !== this.#ws.OPEN) return;
    batchSendsOfThisTurn(this.#ws);
    this.#ws.send(this.#format === 'binary' ? batch.binary() : batch.text());
    this.#deps.metrics.hot.framesSent++;
    this.#guard.gate.noteSent();
  }

  #sendError(error: HubError, id?: number, sessionId?: string): void {
    this.#deps.metrics.errors.inc({ code: error.code });
    if (error.code === HubErrorCode.INTERNAL) this.#log.error({ err: error.cause ?? error }, 'internal error');
    else this.#log.debug({ code: error.code, message: error.message }, 'error reply');
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
      this.#helloDone = this.#hello(message).catch((error: unknown) => {
        this.#fail(error);
        return false;
      });
      return;
    }
    if (this.#state === 'authenticating') {
      this.#keep(this.#helloDone.then((ok) => ok && this.#dispatch(message)));
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
      this.#log.error({ err: error }, 'connection failed; closing it');
      this.#deps.metrics.errors.inc({ code: HubErrorCode.INTERNAL });
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
        this.#setPrincipal(await this.#deps.auth.authenticate(message.token, this.#deps.request));
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
    }
  }

  async #append(message: AppendRequest): Promise<void> {
    let outcome: AppendOutcome;
    try {
      this.#fences.admit(message.sessionId, message.idempotencyKey, message.after);
      this.#guard.checkAppend();
      this.#deps.principalRate?.checkAppend(this.#principal, this.#deps.request.remoteAddress);
      // Authorize and enqueue in arrival order (an async authorize must not reorder pipelined appends).
      const authorized = this.#authorize('append', message.sessionId);
      // Import mode (events keep the given commit time) rewrites history's timeline: admins only.
      const ready =
        message.time === undefined ? authorized : authorized.then(() => this.#authorize('admin', message.sessionId));
      const { metrics, pipeline } = this.#deps;
      const keyOwner = this.#principal?.subject ?? '';
      // The events were decoded from this frame and nothing else holds them: validation freezes them in place.
      for (const event of message.events) adoptDecodedJson(event.data);
      outcome = await measureAppend(metrics, () => pipeline.append({ ...message, keyOwner }, ready));
    } catch (error) {
      this.#fences.failed(message.sessionId, message.idempotencyKey, error);
      throw error;
    }
    const { sessionId, epoch, firstSeq, lastSeq, time, duplicate } = outcome;
    this.send({ type: 'ack', id: message.id, sessionId, epoch, firstSeq, lastSeq, time, duplicate });
  }

  async #authorize(action: HubAction, sessionId: string): Promise<void> {
    const principal = this.#principal;
    if (principal === undefined) throw new HubError(HubErrorCode.UNAUTHORIZED, 'not authenticated');
    if (!(await this.#deps.auth.authorize(principal, action, sessionId))) {
      throw new HubError(HubErrorCode.FORBIDDEN, `${principal.subject} may not ${action} ${sessionId}`);
    }
  }

  async #hello(message: HelloRequest): Promise<boolean> {
    clearTimeout(this.#helloTimer);
    const shared = message.versions.filter((version) => this.#deps.protocolVersions.includes(version));
    if (shared.length === 0) {
      const supported = this.#deps.protocolVersions.join(',');
      const error = new HubError(HubErrorCode.UNSUPPORTED_VERSION, `this hub speaks protocol ${supported}`, {
        supported,
      });
      this.#protocolError(message.id, error.message, error);
      return false;
    }
    try {
      const upgradeToken = this.#deps.upgradeToken(); // a malformed Authorization header fails even with a hello token
      this.#setPrincipal(await this.#deps.auth.authenticate(message.token ?? upgradeToken, this.#deps.request));
    } catch (error) {
      this.#sendError(toHubError(error), message.id);
      this.close(CloseCode.POLICY_VIOLATION, 'authentication failed');
      this.#state = 'closed';
      return false;
    }
    if (this.#state !== 'authenticating') return false;
    if (!this.#deps.admit()) {
      const error = new HubError(HubErrorCode.TOO_MANY_CONNECTIONS, 'this hub node is at its connection limit');
      this.#sendError(error, message.id);
      this.close(CloseCode.TRY_AGAIN_LATER, 'too many connections');
      this.#state = 'closed';
      return false;
    }
    this.#state = 'ready';
    const { maxFrameBytes, maxEventsPerAppend, maxEventBytes } = this.#deps.limits;
    this.send({
      type: 'welcome',
      id: message.id,
      version: shared.reduce((highest, version) => Math.max(highest, version)),
      node: this.#deps.nodeName,
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
    this.#state = 'closed';
    this.#guard.dispose();
    this.#subscriptions.closeAll();
    this.#deps.onClose(this);
  }
}
