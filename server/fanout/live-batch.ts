import { type SessionEvent } from '../../shared/index.ts';
import { encodeFrame, encodeTextFrame } from '../../shared/codec.ts';
import { type EventsMessage } from '../../shared/protocol.ts';
import type { EventsFrame } from './events-frame.ts';

/**
 * A contiguous run of committed events of one session, as delivered live. The `events` frame is encoded at most
 * once per format and the same buffer is sent to every subscriber on the node.
 */
export class LiveBatch implements EventsFrame {
  readonly sessionId: string;
  readonly events: readonly SessionEvent[];
  #binary: Uint8Array | undefined;
  #text: string | undefined;

  constructor(sessionId: string, events: readonly SessionEvent[]) {
    if (events.length === 0) throw new Error('a LiveBatch needs events');
    this.sessionId = sessionId;
    this.events = events;
  }

  get firstSeq(): number {
    return this.events[0]!.seq;
  }

  get lastSeq(): number {
    return this.events[this.events.length - 1]!.seq;
  }

  get message(): EventsMessage {
    return { type: 'events', sessionId: this.sessionId, events: this.events };
  }

  /** The msgpack frame, encoded on first use. */
  binary(): Uint8Array {
    this.#binary ??= encodeFrame(this.message);
    return this.#binary;
  }

  /** The JSON frame, encoded on first use. */
  text(): string {
    this.#text ??= encodeTextFrame(this.message);
    return this.#text;
  }

  /** The events with seq ≥ `fromSeq` (the whole batch when nothing is cut). */
  from(fromSeq: number): LiveBatch | undefined {
    if (fromSeq <= this.firstSeq) return this;
    if (fromSeq > this.lastSeq) return undefined;
    return new LiveBatch(this.sessionId, this.events.slice(fromSeq - this.firstSeq));
  }
}
