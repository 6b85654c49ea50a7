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
  readonly expectedSeq: number | undefined;
  readonly idempotencyKey: string;
  /** Size of its encoded append frame (bytes), to tell which append a 1009 close refused. */
  readonly frameBytes: number;
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
 * The bounded, ordered queue of appends not yet acknowledged (sent or not). Appends go out in the order they
 * were made (per session, one at a time); after a reconnect every unacknowledged one is sent again, in order,
 * with its idempotency key.
 */
export class Outbox {
  readonly #limit: number;
  readonly #entries = new Set<PendingAppend>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Queue an append; throws `HubClientError` OUTBOX_FULL when `limit` appends already wait for an ack. */
  add(entry: PendingAppend): void {
    if (this.#entries.size >= this.#limit) {
      throw new HubClientError(ClientErrorCode.OUTBOX_FULL, `${this.#limit} appends already wait for an ack`, {
        sessionId: entry.sessionId,
        details: { limit: this.#limit },
      });
    }
    this.#entries.add(entry);
  }

  /** Acknowledged, failed or given up: drop it. */
  remove(entry: PendingAppend): void {
    this.#entries.delete(entry);
  }

  /** Every pending append (sent or not), oldest first. */
  entries(): PendingAppend[] {
    return [...this.#entries];
  }

  get size(): number {
    return this.#entries.size;
  }
}
