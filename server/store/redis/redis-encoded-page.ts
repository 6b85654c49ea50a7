import { type SessionEvent } from '../../../shared/index.ts';
import { encodeMsgpackValue } from '../../../shared/codec.ts';
import type { EncodedEventPage } from '../codec/encoded-page.ts';
import { decodeEventBody, toSessionEvent } from '../codec/event-codec.ts';
import { arrayHeaderLength, writeArrayHeader } from '../codec/msgpack-array-header.ts';
import { MARKS_PER_BODY, scanEventBody, splicedEventLength, writeSplicedEvent } from '../codec/event-splice.ts';
import { streamEntryParts, type RawStreamEntry } from './redis-entries.ts';

const EMPTY = new Uint8Array(0);
/**
 * Upper bound of the bytes splicing adds to a stored body (an array of values) to make the event (a map): the
 * keys `type`, `data`, `surfaceOp`, `sourceEventSeqs` (36 bytes), the `seq` and `time` entries (at most 27) and a
 * longer map header (2).
 */
const SPLICE_OVERHEAD_BYTES = 72;

/**
 * A page read from a session's stream, kept as the stored bodies. Every entry is verified when the page is made
 * (ids, fields, time; each body either scans as msgpackr's own form of a valid body, or is decoded and verified
 * the usual way, which throws `StoreDataError` on bad data), so a page never holds data `readPage` would refuse.
 * `msgpack()` splices the scanned bodies into the wire form of the events; `events()` decodes them when a reader
 * needs objects (a JSON client).
 */
class StoredEventPage implements EncodedEventPage {
  readonly epoch: string;
  readonly firstSeq: number;
  readonly #sessionId: string;
  readonly #bodies: Buffer[];
  readonly #times: number[];
  readonly #marks: Int32Array;
  /** Events of bodies that did not scan (decoded and verified when the page was made), by index. */
  readonly #decoded: Map<number, SessionEvent>;
  #events: readonly SessionEvent[] | undefined;

  /** `scanned`: the marks and decoded events of these very bodies (a slice of a page scanned already). */
  constructor(
    sessionId: string,
    epoch: string,
    firstSeq: number,
    bodies: Buffer[],
    times: number[],
    scanned?: { readonly marks: Int32Array; readonly decoded: Map<number, SessionEvent> },
  ) {
    this.#sessionId = sessionId;
    this.epoch = epoch;
    this.firstSeq = firstSeq;
    this.#bodies = bodies;
    this.#times = times;
    if (scanned !== undefined) {
      this.#marks = scanned.marks;
      this.#decoded = scanned.decoded;
      return;
    }
    this.#marks = new Int32Array(bodies.length * MARKS_PER_BODY);
    this.#decoded = new Map();
    for (let index = 0; index < bodies.length; index++) {
      if (!scanEventBody(bodies[index]!, this.#marks, index * MARKS_PER_BODY)) {
        this.#decoded.set(index, this.#decode(index));
      }
    }
  }

  eventBytes(index: number): number {
    return (this.#bodies[index]?.length ?? 0) + SPLICE_OVERHEAD_BYTES;
  }

  slice(start: number, end: number): EncodedEventPage {
    const decoded = new Map<number, SessionEvent>();
    for (const [index, event] of this.#decoded) if (index >= start && index < end) decoded.set(index - start, event);
    const marks = this.#marks.subarray(start * MARKS_PER_BODY, end * MARKS_PER_BODY);
    const bodies = this.#bodies.slice(start, end);
    const times = this.#times.slice(start, end);
    return new StoredEventPage(this.#sessionId, this.epoch, this.firstSeq + start, bodies, times, { marks, decoded });
  }

  get count(): number {
    return this.#bodies.length;
  }

  events(): readonly SessionEvent[] {
    this.#events ??= this.#bodies.map((_, index) => this.#decoded.get(index) ?? this.#decode(index));
    return this.#events;
  }

  msgpack(head?: Uint8Array): Uint8Array {
    return this.#splice(head ?? EMPTY);
  }

  #decode(index: number): SessionEvent {
    const seq = this.firstSeq + index;
    const body = decodeEventBody(this.#bodies[index]!, `session ${this.#sessionId} seq ${seq}`);
    return toSessionEvent(body, seq, this.#times[index]!);
  }

  #splice(head: Uint8Array): Uint8Array {
    const count = this.#bodies.length;
    const marks = this.#marks;
    const encoded = new Map<number, Uint8Array>();
    for (const [index, event] of this.#decoded) encoded.set(index, encodeMsgpackValue(event));
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
      if (own !== undefined) {
        target.set(own, next);
        next += own.length;
      } else {
        const at = index * MARKS_PER_BODY;
        next = writeSplicedEvent(
          target,
          next,
          this.#bodies[index]!,
          marks,
          at,
          this.firstSeq + index,
          this.#times[index]!,
        );
      }
    }
    if (next !== length) throw new Error(`spliced ${next} bytes, expected ${length}`);
    return target;
  }
}

/**
 * The encoded page of stream entries read from `fromSeq` (see `StoredEventPage`). Throws `StoreDataError` on
 * entries `decodeStreamEntries` would refuse.
 */
export function encodedStreamPage(
  sessionId: string,
  epoch: string,
  fromSeq: number,
  entries: RawStreamEntry[],
): EncodedEventPage {
  const { bodies, times } = streamEntryParts(sessionId, fromSeq, entries);
  return new StoredEventPage(sessionId, epoch, fromSeq, bodies, times);
}
