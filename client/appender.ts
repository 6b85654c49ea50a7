import type { EventDraft, SessionEvent } from '../shared/events.ts';
import { encodeMsgpackValue } from '../shared/codec.ts';
import { hasLoneSurrogate } from '../shared/check-helpers.ts';
import { maxIdempotencyKeyUnits } from '../shared/protocol-parse.ts';
import { CloseCode, HubErrorCode } from '../shared/protocol.ts';
import { RETRY_LATER_CODES } from '../shared/retry-codes.ts';
import type { ServerMessage } from '../shared/protocol.ts';
import { appendFrameBytes, encodeAppendFrame, encodeDraftArray } from './append-frame.ts';
import { committedEvents, prepareDraft } from './committed.ts';
import type { Connection } from './connection.ts';
import { ClientErrorCode, HubClientError } from './errors.ts';
import { checkTimeoutMs } from './options-check.ts';
import { Outbox } from './outbox.ts';
import { randomUuid } from './random-id.ts';
import type { PendingAppend } from './outbox.ts';
import type { RequestTracker } from './requests.ts';

/** Options of one `append`. */
export interface AppendOptions {
  /** The seq the first event must get (= head + 1), or the append fails with SEQ_CONFLICT. */
  readonly expectedSeq?: number;
  /** Dedupe key; generated (a random UUID) when not given. Reuse it to retry an append whose fate is unknown. */
  readonly idempotencyKey?: string;
  /**
   * Reject with TIMEOUT after this long without an ack, counted from the call, queueing included (ms). Infinity:
   * never; at most 2^31 - 1 (about 24.8 days); negative or NaN: BAD_REQUEST. Default: `requestTimeoutMs`.
   */
  readonly timeoutMs?: number;
}

/** Codes after which an append is sent again (same key) on the next connection instead of failing. */
const RESEND_CODES: ReadonlySet<HubErrorCode> = new Set([HubErrorCode.SHUTTING_DOWN]);
/** An encoded empty map: its header (msgpackr gives every object a header of this size, whatever its fields). */
const EMPTY_MAP_BYTES = encodeMsgpackValue({}).byteLength;

/** Limits an append is checked against before it is queued. */
export interface AppendLimits {
  readonly maxFrameBytes: number;
  /** Undefined until a hub announced it. */
  readonly maxEventsPerAppend: number | undefined;
}

export interface AppenderOptions {
  readonly outboxLimit: number;
  readonly defaultTimeoutMs: number;
  /** Delay before the n-th retry of an append the hub could not take yet (STORE_UNAVAILABLE, RATE_LIMITED). */
  readonly retryDelay: (attempt: number) => number;
  /**
   * The limits appends are checked against when they are made: the largest append frame (FRAME_TOO_LARGE beyond)
   * and the most events per append (BATCH_TOO_LARGE beyond), the client's options narrowed by what the hub
   * announced in its last `welcome`.
   */
  readonly limits: () => AppendLimits;
  /** Appends of one session on the wire at once (pipelining); 1 = one at a time. */
  readonly maxInFlightPerSession: number;
}

/**
 * Appends with exactly-once delivery: every append carries an idempotency key, waits in the bounded outbox
 * while disconnected, and is re-sent in order with the same key after a reconnect until it is acknowledged,
 * refused, or times out.
 */
export class Appender {
  readonly #connection: Connection;
  readonly #requests: RequestTracker;
  readonly #outbox: Outbox;
  readonly #defaultTimeoutMs: number;
  readonly #retryDelay: (attempt: number) => number;
  readonly #limits: () => AppendLimits;
  readonly #maxInFlight: number;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #wakeTime = Number.POSITIVE_INFINITY;
  readonly #settlers = new Map<PendingAppend, (error: HubClientError | undefined, events?: SessionEvent[]) => void>();

  constructor(connection: Connection, requests: RequestTracker, options: AppenderOptions) {
    this.#connection = connection;
    this.#requests = requests;
    this.#outbox = new Outbox(options.outboxLimit);
    this.#defaultTimeoutMs = options.defaultTimeoutMs;
    this.#retryDelay = options.retryDelay;
    this.#limits = options.limits;
    this.#maxInFlight = Math.max(1, Math.floor(options.maxInFlightPerSession));
  }

  /** Appends waiting for an ack (queued or on the wire). */
  get pending(): number {
    return this.#outbox.size;
  }

  append(sessionId: string, drafts: readonly EventDraft[], options: AppendOptions): Promise<SessionEvent[]> {
    if (drafts.length === 0) return Promise.reject(new HubClientError('BAD_REQUEST', 'append needs events'));
    let entry: PendingAppend;
    let timeoutMs: number;
    try {
      timeoutMs =
        options.timeoutMs === undefined ? this.#defaultTimeoutMs : checkTimeoutMs('timeoutMs', options.timeoutMs);
      const limits = this.#limits();
      checkEventCount(sessionId, drafts.length, limits.maxEventsPerAppend);
      const prepared = drafts.map(prepareDraft);
      const idempotencyKey =
        options.idempotencyKey === undefined ? randomUuid() : checkIdempotencyKey(sessionId, options.idempotencyKey);
      const encodedEvents = encodeDraftArray(prepared);
      const bytes = this.#checkFrameSize(sessionId, encodedEvents, options.expectedSeq, idempotencyKey, limits);
      // Pipelined, the frame also carries `after`: the key of whichever append of the session queued before this
      // one it ends up right behind (those in between may be given up first), so room for the longest of them.
      const bytesWithAfter = bytes + this.#longestAfterBytes(sessionId);
      const alone = bytesWithAfter > limits.maxFrameBytes;
      entry = {
        sessionId,
        drafts: prepared,
        encodedEvents,
        expectedSeq: options.expectedSeq,
        idempotencyKey,
        frameBytes: alone ? bytes : bytesWithAfter,
        keyAsAfterBytes: afterFieldBytes(idempotencyKey),
        alone,
        sent: false,
        requestId: undefined,
        retries: 0,
        notBefore: 0,
        lastErrorCode: undefined,
      };
      this.#outbox.add(entry);
    } catch (error) {
      return Promise.reject(error);
    }
    const promise = new Promise<SessionEvent[]>((resolve, reject) => {
      const onTimeout = (): void => {
        if (!entry.sent) {
          settle(this.#notSent(entry, `not sent within ${timeoutMs} ms`, { timeoutMs }));
          return;
        }
        const message = `no ack after ${timeoutMs} ms (it may still commit: retry with the same idempotencyKey)`;
        settle(
          new HubClientError(ClientErrorCode.TIMEOUT, message, {
            sessionId,
            details: {
              idempotencyKey: entry.idempotencyKey,
              timeoutMs,
              ...(entry.lastErrorCode === undefined ? {} : { lastErrorCode: entry.lastErrorCode }),
            },
          }),
        );
      };
      const timer = timeoutMs === Number.POSITIVE_INFINITY ? undefined : setTimeout(onTimeout, timeoutMs);
      const settle = (error: HubClientError | undefined, events?: SessionEvent[]): void => {
        clearTimeout(timer);
        this.#settlers.delete(entry);
        this.#outbox.remove(entry);
        if (entry.requestId !== undefined) this.#requests.forget(entry.requestId);
        if (error === undefined) resolve(events ?? []);
        else reject(error);
        // The next append of the session may go now.
        this.flush(sessionId);
      };
      this.#settlers.set(entry, settle);
    });
    this.flush(sessionId);
    return promise;
  }

  /**
   * Send what may go now, oldest first (called on connect, after each new append and after each answer).
   *
   * Per session, appends go out in call order, up to `maxInFlightPerSession` ahead of their acks, and never past
   * one that waits (for a backoff or the next connection): the ones behind it wait too. Each append names the one
   * it is sent right behind (`after`); if that one fails with "try again later" (STORE_UNAVAILABLE,
   * RATE_LIMITED), the hub refuses the later ones (APPEND_FENCED, nothing written) and they are re-sent behind it,
   * so a session never commits them out of order, also across reconnects (everything unacknowledged is re-sent in
   * order).
   */
  flush(sessionId?: string): void {
    if (this.#connection.state !== 'connected') return;
    const now = Date.now();
    if (sessionId !== undefined) {
      const entries = this.#outbox.ofSession(sessionId);
      if (entries !== undefined) this.#flushSession(entries, now);
      return;
    }
    this.#cancelWake();
    for (const entries of [...this.#outbox.sessions()]) {
      if (!this.#flushSession(entries, now)) return;
    }
  }

  /** Send what may go of one session (see `flush`); false when the connection took nothing more. */
  #flushSession(entries: readonly PendingAppend[], now: number): boolean {
    let onWire = 0;
    let last: PendingAppend | undefined;
    for (const entry of entries) {
      if (entry.requestId !== undefined) {
        onWire++;
        last = entry;
        continue;
      }
      if (entry.notBefore > now) {
        // Waiting for a backoff (or, when infinite, for the next connection): it holds back its session only.
        this.#wakeAt(entry.notBefore, now);
        return true;
      }
      if (onWire >= this.#maxInFlight) return true;
      // Too big to carry `after`: it goes once it is the oldest of its session, so behind nothing.
      if (entry.alone && onWire > 0) return true;
      if (!this.#send(entry, last?.idempotencyKey)) return false;
      onWire++;
      last = entry;
    }
    return true;
  }

  /** Flush everything at `at` (the earliest time an append waiting for a backoff may go). */
  #wakeAt(at: number, now: number): void {
    if (!Number.isFinite(at) || at >= this.#wakeTime) return;
    clearTimeout(this.#retryTimer);
    this.#wakeTime = at;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#wakeTime = Number.POSITIVE_INFINITY;
      this.flush();
    }, at - now);
  }

  #cancelWake(): void {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#wakeTime = Number.POSITIVE_INFINITY;
  }

  /** A (new) connection was welcomed: appends held for a reconnect may go again; send what can go. */
  connected(): void {
    for (const entries of this.#outbox.sessions()) {
      for (const entry of entries) if (entry.notBefore === Number.POSITIVE_INFINITY) entry.notBefore = 0;
    }
    this.flush();
  }

  /** The client closed: reject everything still pending with CLOSED (and each append's key: it may have committed). */
  rejectAll(): void {
    this.#cancelWake();
    for (const [entry, settle] of [...this.#settlers]) {
      if (!entry.sent) {
        settle(this.#notSent(entry, 'the client closed before sending it', {}, ClientErrorCode.CLOSED));
        continue;
      }
      const message = 'the client closed before the ack (it may have committed: retry with the same idempotencyKey)';
      settle(
        new HubClientError(ClientErrorCode.CLOSED, message, {
          sessionId: entry.sessionId,
          details: { idempotencyKey: entry.idempotencyKey },
        }),
      );
    }
  }

  /**
   * The hub closed the connection with 1009 (a frame above its limit): fail the biggest append on the wire with
   * FRAME_TOO_LARGE instead of sending it again after every reconnect. The others are re-sent as usual.
   */
  frameRefused(): void {
    let culprit: PendingAppend | undefined;
    for (const entry of this.#settlers.keys()) {
      if (entry.requestId !== undefined && (culprit === undefined || entry.frameBytes > culprit.frameBytes)) {
        culprit = entry;
      }
    }
    if (culprit === undefined) return;
    const message = `the hub closed the connection (1009) on an append frame of ${culprit.frameBytes} bytes`;
    this.#settlers.get(culprit)?.(
      new HubClientError('FRAME_TOO_LARGE', message, {
        sessionId: culprit.sessionId,
        details: { bytes: culprit.frameBytes, closeCode: CloseCode.MESSAGE_TOO_BIG },
      }),
    );
  }

  /** The encoded size of the append (with the widest request id); throws FRAME_TOO_LARGE above the limit. */
  #checkFrameSize(
    sessionId: string,
    encodedEvents: Uint8Array,
    expectedSeq: number | undefined,
    idempotencyKey: string,
    limits: AppendLimits,
  ): number {
    const { maxFrameBytes } = limits;
    const fields = {
      type: 'append',
      id: Number.MAX_SAFE_INTEGER,
      sessionId,
      ...(expectedSeq === undefined ? {} : { expectedSeq }),
      idempotencyKey,
    } as const;
    const bytes = appendFrameBytes(fields, encodedEvents);
    if (bytes > maxFrameBytes) {
      throw new HubClientError('FRAME_TOO_LARGE', `the append is ${bytes} bytes, above ${maxFrameBytes}`, {
        sessionId,
        details: { bytes, limit: maxFrameBytes },
      });
    }
    return bytes;
  }

  /** What the longest `after` an append of `sessionId` queued now may be sent with adds to its frame (bytes). */
  #longestAfterBytes(sessionId: string): number {
    let longest = 0;
    for (const entry of this.#outbox.ofSession(sessionId) ?? []) longest = Math.max(longest, entry.keyAsAfterBytes);
    return longest;
  }

  #send(entry: PendingAppend, after: string | undefined): boolean {
    const id = this.#requests.nextId();
    entry.requestId = id;
    this.#requests.track(id, {
      onReply: (message) => this.#onReply(entry, message),
      onLost: () => {
        entry.requestId = undefined;
      },
    });
    const fields = {
      type: 'append',
      id,
      sessionId: entry.sessionId,
      ...(entry.expectedSeq === undefined ? {} : { expectedSeq: entry.expectedSeq }),
      idempotencyKey: entry.idempotencyKey,
      ...(after === undefined ? {} : { after }),
    } as const;
    const sent = this.#connection.sendFrame(encodeAppendFrame(fields, entry.encodedEvents));
    if (!sent) {
      this.#requests.forget(id);
      entry.requestId = undefined;
    } else entry.sent = true;
    return sent;
  }

  /** An append that never went out: nothing was written, so it can be made again safely (any key). */
  #notSent(
    entry: PendingAppend,
    what: string,
    details: Readonly<Record<string, number>>,
    code: typeof ClientErrorCode.NOT_SENT | typeof ClientErrorCode.CLOSED = ClientErrorCode.NOT_SENT,
  ): HubClientError {
    const { state, stateCause } = this.#connection;
    const connection =
      state === 'connected'
        ? 'it waited behind earlier appends of its session'
        : `no connection to the hub (${state}: ${stateCause.reason})`;
    return new HubClientError(code, `${what}: ${connection}; nothing was written`, {
      sessionId: entry.sessionId,
      details: { ...details, sent: false, idempotencyKey: entry.idempotencyKey, state, stateCode: stateCause.code },
    });
  }

  #onReply(entry: PendingAppend, message: ServerMessage): void {
    entry.requestId = undefined;
    const settle = this.#settlers.get(entry);
    if (settle === undefined) return;
    if (message.type === 'ack') {
      try {
        settle(undefined, committedEvents(entry.drafts, message));
      } catch (error) {
        settle(error as HubClientError);
      }
    } else if (message.type === 'error' && RESEND_CODES.has(message.code)) {
      // Not committed; the hub is going away. Sent again with the same key after the reconnect.
      entry.lastErrorCode = message.code;
      entry.notBefore = Number.POSITIVE_INFINITY;
    } else if (message.type === 'error' && message.code === HubErrorCode.APPEND_FENCED) {
      // Not committed: the append it was sent behind failed. It goes again right behind that one's re-send.
      entry.notBefore = 0;
      this.flush(entry.sessionId);
    } else if (message.type === 'error' && RETRY_LATER_CODES.has(message.code)) {
      // Nothing was written: send it again (same key) after a backoff delay, until it commits or times out.
      entry.lastErrorCode = message.code;
      entry.notBefore = Date.now() + this.#retryDelay(entry.retries++);
      this.flush(entry.sessionId);
    } else if (message.type === 'error') {
      settle(
        new HubClientError(message.code, message.message, { sessionId: entry.sessionId, details: message.details }),
      );
    } else {
      settle(new HubClientError(ClientErrorCode.PROTOCOL, `unexpected ${message.type} in reply to append`));
    }
  }
}

/** More events than the hub takes in one append (when it announced its limit): BATCH_TOO_LARGE, nothing sent. */
function checkEventCount(sessionId: string, count: number, limit: number | undefined): void {
  if (limit === undefined || count <= limit) return;
  throw new HubClientError('BATCH_TOO_LARGE', `an append may hold at most ${limit} events (this hub's limit)`, {
    sessionId,
    details: { events: count, limit },
  });
}

/**
 * A caller's idempotency key, checked as the hub checks it (1 to 256 UTF-16 units) and as well-formed Unicode (a
 * lone surrogate would not survive UTF-8): a bad key would fail the append at the hub, and the append pipelined
 * behind it too (it names the key as `after`). Throws BAD_REQUEST.
 */
function checkIdempotencyKey(sessionId: string, key: string): string {
  let problem: string | undefined;
  if (typeof key !== 'string' || key.length === 0) problem = 'must be a non-empty string';
  else if (key.length > maxIdempotencyKeyUnits) problem = `is longer than ${maxIdempotencyKeyUnits} characters`;
  else if (hasLoneSurrogate(key)) problem = 'must be well-formed Unicode (no lone surrogates)';
  if (problem === undefined) return key;
  throw new HubClientError('BAD_REQUEST', `idempotencyKey ${problem}`, { sessionId });
}

/** Bytes an `after` field naming `key` adds to an append frame (what it adds to an empty map: the field alone). */
function afterFieldBytes(key: string): number {
  return encodeMsgpackValue({ after: key }).byteLength - EMPTY_MAP_BYTES;
}
