import type { TokenSource } from './connection.ts';
import type { BackoffOptions } from '../shared/backoff.ts';
import type { WebSocketConstructor } from './transport.ts';

export interface HubClientOptions {
  /**
   * The hub's WebSocket endpoint, e.g. `ws://127.0.0.1:8080/v1/ws`, or several nodes' endpoints: each reconnect
   * tries the next one (round robin), so clients of a node that goes away move to another.
   */
  readonly url: string | readonly string[];
  /** Bearer token, or a function called before every (re)connect that returns the current one. */
  readonly token?: TokenSource;
  /** Reconnect backoff (full jitter). Defaults: 250 ms initial bound, 10 s cap, factor 2. */
  readonly reconnect?: BackoffOptions;
  /** WebSocket implementation. Default: the browser's `WebSocket`, or `ws` in Node. */
  readonly WebSocket?: WebSocketConstructor;
  /**
   * Default append timeout, counted from the call, queueing included (ms). Default 30,000. Infinity: none; at most
   * 2^31 - 1 (about 24.8 days, the longest timer); negative or NaN: BAD_REQUEST.
   */
  readonly requestTimeoutMs?: number;
  /** Most appends that may wait for an ack at once; more reject with OUTBOX_FULL. Default 1,000. */
  readonly outboxLimit?: number;
  /**
   * Largest append frame (encoded) the hub takes: its `maxFrameBytes`. A bigger append fails at once with
   * FRAME_TOO_LARGE (nothing is sent). Default 1 MiB, the hub's default.
   */
  readonly maxFrameBytes?: number;
  /**
   * Appends of one session sent ahead of their acks (pipelining). The hub commits appends that queue up behind a
   * commit together, so a writer making many small appends gets one round trip per group instead of one per
   * append; order is kept across retries (each append names the one it was sent behind, see docs/client.md).
   * 1 = one at a time. Default 32.
   */
  readonly maxAppendsInFlightPerSession?: number;
  /** Ping after this long without a frame from the hub (ms). Default 15,000. */
  readonly heartbeatIntervalMs?: number;
  /** Reconnect after this long without a frame from the hub (ms). Default 40,000. */
  readonly heartbeatTimeoutMs?: number;
  /**
   * Give up a connection attempt after this long (ms), and retry with backoff: the token function's answer, then
   * open + hello, each get this long. Default 10,000.
   */
  readonly connectTimeoutMs?: number;
  /**
   * Call the token function this often and send the new token over the open connection (`auth`), so a
   * connection outlives its tokens' expiry. Default: off (the token is only read on each connect).
   */
  readonly tokenRefreshIntervalMs?: number;
  /**
   * Where errors thrown by your event listeners go, and rejections of the promises they return (an `async` listener
   * is not awaited). Default: reported as uncaught, without breaking the SDK.
   */
  readonly onListenerError?: (error: unknown) => void;
}
