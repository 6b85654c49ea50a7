import type { SurfaceOp } from '../shared/events.ts';
import type { JsonValue } from '../shared/json.ts';
import { ClientErrorCode, HubClientError } from './errors.ts';

/** A draft as it goes on the wire: data copied and frozen at `append()` time, surfaceOp defaulted. */
export interface OutgoingDraft {
  readonly type: string;
  readonly data: JsonValue;
  readonly surfaceOp?: SurfaceOp;
  readonly sourceEventSeqs?: readonly number[];
}

/** One append awaiting its ack. */
export interface PendingAppend {
  readonly sessionId: string;
  readonly drafts: readonly OutgoingDraft[];
  /** The drafts as the msgpack array the frame carries (encoded once, for every send). */
  readonly encodedEvents: Uint8Array;
  readonly expectedSeq: number | undefined;
  readonly idempotencyKey: string;
  /** Size of its encoded append frame (bytes, with the longest `after` it may carry), to tell which append a 1009
   * close refused. */
  readonly frameBytes: number;
  /** Bytes the `after` field naming this append's key adds to the frame of an append sent right behind it. */
  readonly keyAsAfterBytes: number;
  /** Its frame fits the hub's limit only without `after`: sent only once no append of its session is ahead of it. */
  readonly alone: boolean;
  /** True once it was handed to a connection (it may have committed); false: nothing was ever sent. */
  sent: boolean;
  /** The request id while it is on the wire on the current connection; undefined while it waits to be sent. */
  requestId: number | undefined;
  /** Times the hub answered "try again later" (STORE_UNAVAILABLE, RATE_LIMITED). */
  retries: number;
  /** Epoch ms before which it must not be re-sent (backoff after "try again later"; infinite: until the next
   * connection, after SHUTTING_DOWN). */
  notBefore: number;
  /** The last error code the hub answered with, reported with a TIMEOUT. */
  lastErrorCode: string | undefined;
}

/**
 * The bounded queue of appends not yet acknowledged (sent or not), kept per session in call order. Appends go out
 * in the order they were made; after a reconnect every unacknowledged one is sent again, in order, with its
 * idempotency key.
 */
export class Outbox {
  readonly #limit: number;
  readonly #bySession = new Map<string, PendingAppend[]>();
  #size = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Queue an append; throws `HubClientError` OUTBOX_FULL when `limit` appends already wait for an ack. */
  add(entry: PendingAppend): void {
    if (this.#size >= this.#limit) {
      throw new HubClientError(ClientErrorCode.OUTBOX_FULL, `${this.#limit} appends already wait for an ack`, {
        sessionId: entry.sessionId,
        details: { limit: this.#limit },
      });
    }
    const queue = this.#bySession.get(entry.sessionId);
    if (queue === undefined) this.#bySession.set(entry.sessionId, [entry]);
    else queue.push(entry);
    this.#size++;
  }

  /** Acknowledged, failed or given up: drop it. */
  remove(entry: PendingAppend): void {
    const queue = this.#bySession.get(entry.sessionId);
    const index = queue?.indexOf(entry) ?? -1;
    if (queue === undefined || index === -1) return;
    queue.splice(index, 1);
    this.#size--;
    if (queue.length === 0) this.#bySession.delete(entry.sessionId);
  }

  /** The pending appends of one session, oldest first (the live array: do not change it). */
  ofSession(sessionId: string): readonly PendingAppend[] | undefined {
    return this.#bySession.get(sessionId);
  }

  /** Every session's pending appends, each oldest first. */
  sessions(): IterableIterator<readonly PendingAppend[]> {
    return this.#bySession.values();
  }

  get size(): number {
    return this.#size;
  }
}
