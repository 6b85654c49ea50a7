import { type SessionEvent } from '../../../shared/index.ts';
import { encodeMsgpackValue } from '../../../shared/codec.ts';
import type { StoredPage } from '../event-store.ts';
import { decodeStoredEvent } from './stored-events.ts';
import { arrayHeaderLength, writeArrayHeader } from '../../../shared/msgpack-header.ts';
import { MARKS_PER_BODY, scanEventBody, splicedEventLength, writeSplicedEvent } from './event-splice.ts';

const EMPTY = new Uint8Array(0);
/**
 * Upper bound of the bytes splicing adds to a stored body (an array of values) to make the event (a map): the
 * keys `type`, `data`, `surfaceOp`, `sourceEventSeqs` (36 bytes), the `seq` and `time` entries (at most 27) and a
 * longer map header (2).
 */
const SPLICE_OVERHEAD_BYTES = 72;

/** What scanning a page's bodies found, shared with its slices (`EncodedEventPage.slice`). */
export interface ScannedBodies {
  /** `MARKS_PER_BODY` marks per body (event-splice.ts); meaningless for the bodies in `decoded`. */
  readonly marks: Int32Array;
  /** Events of the bodies that did not scan (decoded and verified when the page was made), by index. */
  readonly decoded: Map<number, SessionEvent>;
}

/**
 * A page of stored events (`EventStore.readStoredPage`) in the form a reader that forwards them in msgpack needs
 * (the hub's catch-up): their msgpack is spliced from the stored bodies, never decoded into objects and encoded
 * again.
 *
 * Every body is verified when the page is made: it either scans as msgpackr's own form of a valid body
 * (event-splice.ts, msgpack-scan.ts: nothing is built), or is decoded and verified the usual way, which throws
 * `StoreDataError` naming the session and seq on anything `decodeStoredPage` would refuse. So a page never holds
 * data `decodeStoredPage` would refuse.
 */
export class EncodedEventPage {
  /** The session's epoch at the time of the read; undefined when the session has none (and `count` is 0). */
  readonly epoch: string | undefined;
  /** Seq of the first event; event `i` has seq `firstSeq + i`. */
  readonly firstSeq: number;
  /** The read stopped early for bytes: more events follow (`StoredPage.truncated`). */
  readonly truncated: boolean;
  readonly #sessionId: string;
  readonly #bodies: readonly Uint8Array[];
  readonly #times: readonly number[];
  readonly #scanned: ScannedBodies;
  #events: readonly SessionEvent[] | undefined;

  /** `scanned`: what scanning these very bodies found (a slice of a page made already). */
  constructor(sessionId: string, page: StoredPage, scanned?: ScannedBodies) {
    this.#sessionId = sessionId;
    this.epoch = page.epoch;
    this.firstSeq = page.firstSeq;
    this.truncated = page.truncated === true;
    this.#bodies = page.bodies;
    this.#times = page.times;
    this.#scanned = scanned ?? this.#scan();
  }

  /** How many events: seqs `firstSeq .. firstSeq + count - 1`. */
  get count(): number {
    return this.#bodies.length;
  }

  /** The events, the values `decodeStoredPage` returns (decoded on the first call). */
  events(): readonly SessionEvent[] {
    this.#events ??= this.#bodies.map((_, index) => this.#scanned.decoded.get(index) ?? this.#decode(index));
    return this.#events;
  }

  /**
   * The events as one msgpack array of maps `{seq, type, time, data, surfaceOp?, sourceEventSeqs?}`: the bytes
   * `encodeMsgpackValue(events())` gives, preceded by `head` when given (one buffer for a whole frame).
   */
  msgpack(head: Uint8Array = EMPTY): Uint8Array {
    const count = this.#bodies.length;
    const { marks, decoded } = this.#scanned;
    const encoded = new Map<number, Uint8Array>();
    for (const [index, event] of decoded) encoded.set(index, encodeMsgpackValue(event));
    let length = head.length + arrayHeaderLength(count);
    for (let index = 0; index < count; index++) {
      const own = encoded.get(index);
      length +=
        own === undefined
          ? splicedEventLength(marks, index * MARKS_PER_BODY, this.firstSeq + index, this.#times[index]!)
          : own.length;
    }
    const target = Buffer.allocUnsafe(length);
    target.set(head, 0);
    let next = writeArrayHeader(target, head.length, count);
    for (let index = 0; index < count; index++) {
      const own = encoded.get(index);
      if (own === undefined) {
        const seq = this.firstSeq + index;
        next = writeSplicedEvent(
          target,
          next,
          this.#bodies[index]!,
          marks,
          index * MARKS_PER_BODY,
          seq,
          this.#times[index]!,
        );
      } else {
        target.set(own, next);
        next += own.length;
      }
    }
    if (next !== length) throw new Error(`spliced ${next} bytes, expected ${length}`);
    return target;
  }

  /**
   * About how many bytes event `index` (0-based in the page) takes in `msgpack()`: its stored body plus seq, time
   * and keys (never less than the exact size). Used to cut pages into bounded frames.
   */
  eventBytes(index: number): number {
    return (this.#bodies[index]?.length ?? 0) + SPLICE_OVERHEAD_BYTES;
  }

  /** The events `start .. end - 1` (indexes in this page) as a page of their own, sharing this page's data. */
  slice(start: number, end: number): EncodedEventPage {
    const decoded = new Map<number, SessionEvent>();
    for (const [index, event] of this.#scanned.decoded) {
      if (index >= start && index < end) decoded.set(index - start, event);
    }
    const marks = this.#scanned.marks.subarray(start * MARKS_PER_BODY, end * MARKS_PER_BODY);
    const page: StoredPage = {
      epoch: this.epoch,
      firstSeq: this.firstSeq + start,
      bodies: this.#bodies.slice(start, end),
      times: this.#times.slice(start, end),
    };
    return new EncodedEventPage(this.#sessionId, page, { marks, decoded });
  }

  #scan(): ScannedBodies {
    const marks = new Int32Array(this.#bodies.length * MARKS_PER_BODY);
    const decoded = new Map<number, SessionEvent>();
    for (let index = 0; index < this.#bodies.length; index++) {
      if (!scanEventBody(this.#bodies[index]!, marks, index * MARKS_PER_BODY)) decoded.set(index, this.#decode(index));
    }
    return { marks, decoded };
  }

  #decode(index: number): SessionEvent {
    return decodeStoredEvent(this.#sessionId, this.firstSeq + index, this.#bodies[index]!, this.#times[index]!);
  }
}
