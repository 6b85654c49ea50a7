import { type SessionEvent } from '../../../shared/index.ts';
import { encodeMsgpackValue } from '../../../shared/codec.ts';
import type { EventPage } from '../event-store.ts';
import { msgpackArrayHeader } from './msgpack-array-header.ts';

const EMPTY = new Uint8Array(0);

/**
 * A page of a session's events for a reader that forwards them in msgpack (the hub's catch-up): the events of
 * `readPage`, verified the same way, whose msgpack form can be had without turning them into objects first.
 */
export interface EncodedEventPage {
  /** The session's epoch at the time of the read; undefined when the session has none (and `count` is 0). */
  readonly epoch: string | undefined;
  /** Seq of the first event (the `fromSeq` of the read); meaningless when `count` is 0. */
  readonly firstSeq: number;
  /** How many events: seqs `firstSeq .. firstSeq + count - 1`. */
  readonly count: number;
  /** The events, the same values `readPage` returns (the Redis engine decodes them on the first call). */
  events(): readonly SessionEvent[];
  /**
   * The events as one msgpack array of maps `{seq, type, time, data, surfaceOp?, sourceEventSeqs?}`: each stored
   * body with its seq and time, the same bytes `encodeMsgpackValue(events())` gives (the Redis engine splices
   * them from the stored bodies, see event-splice.ts), preceded by the bytes of `head` when given (one buffer for a
   * whole frame). What goes around them on the wire is the caller's business.
   */
  msgpack(head?: Uint8Array): Uint8Array;
  /**
   * About how many bytes event `index` (0-based in the page) takes in `msgpack()`: its stored body plus seq and
   * time (exact for the memory engine, within a few bytes for Redis). Used to cut pages into bounded frames.
   */
  eventBytes(index: number): number;
  /** The events `start .. end - 1` (indexes in this page) as a page of their own, sharing this page's data. */
  slice(start: number, end: number): EncodedEventPage;
}

/**
 * An encoded page over events that are already objects (the memory engine, and anything else that only has a
 * `readPage`): the msgpack form is encoded on each call. Events before `fromSeq` are left out.
 */
export class DecodedEventPage implements EncodedEventPage {
  readonly epoch: string | undefined;
  readonly firstSeq: number;
  readonly #events: readonly SessionEvent[];

  /** Each event's msgpack, once `eventBytes` asked for sizes: `msgpack()` then joins these instead of encoding again. */
  #encoded: Uint8Array[] | undefined;

  constructor(page: EventPage, fromSeq: number) {
    this.epoch = page.epoch;
    const skip = page.events.findIndex((event) => event.seq >= fromSeq);
    this.#events = skip <= 0 ? (skip === 0 ? page.events : []) : page.events.slice(skip);
    this.firstSeq = this.#events[0]?.seq ?? fromSeq;
  }

  eventBytes(index: number): number {
    this.#encoded ??= this.#events.map((event) => encodeMsgpackValue(event));
    return this.#encoded[index]?.byteLength ?? 0;
  }

  slice(start: number, end: number): EncodedEventPage {
    const events = this.#events.slice(start, end);
    return new DecodedEventPage({ epoch: this.epoch, events }, events[0]?.seq ?? this.firstSeq + start);
  }

  get count(): number {
    return this.#events.length;
  }

  events(): readonly SessionEvent[] {
    return this.#events;
  }

  msgpack(head?: Uint8Array): Uint8Array {
    const encoded = this.#encoded;
    if (encoded !== undefined) return Buffer.concat([head ?? EMPTY, msgpackArrayHeader(encoded.length), ...encoded]);
    const events = encodeMsgpackValue(this.#events);
    return head === undefined ? events : Buffer.concat([head, events]);
  }
}
