import { type SessionEvent } from '../../shared/index.ts';
import { encodeMsgpackValue, encodeTextFrame } from '../../shared/codec.ts';
import { type EventsMessage } from '../../shared/protocol.ts';
import type { EncodedEventPage } from '../store/codec/encoded-page.ts';

/** An `events` frame on its way to a subscriber: the message, and its two encodings, each made at most once. */
export interface EventsFrame {
  readonly message: EventsMessage;
  /** The msgpack (binary) frame. */
  binary(): Uint8Array;
  /** The JSON (text) frame. */
  text(): string;
}

const EMPTY_ARRAY = 0x90;

/**
 * The first bytes of the binary `events` frame of a session, up to the events: `encodeFrame` writes
 * `{ type: 'events', sessionId, events }` as these bytes followed by the msgpack array of the events (`events` is
 * the message's last field).
 */
export function eventsFrameHead(sessionId: string): Uint8Array {
  const empty = encodeMsgpackValue({ type: 'events', sessionId, events: [] });
  if (empty[empty.length - 1] !== EMPTY_ARRAY) throw new Error('unexpected encoding of an events message');
  return empty.subarray(0, empty.length - 1);
}

/**
 * A catch-up page as an `events` frame: the binary frame is built around the page's msgpack (spliced from the
 * stored bodies, see store/codec/encoded-page.ts), so the events are only turned into objects for JSON clients.
 */
export class CatchUpFrame implements EventsFrame {
  readonly sessionId: string;
  readonly #page: EncodedEventPage;

  constructor(sessionId: string, page: EncodedEventPage) {
    if (page.count === 0) throw new Error('a CatchUpFrame needs events');
    this.sessionId = sessionId;
    this.#page = page;
  }

  get message(): EventsMessage {
    const events: readonly SessionEvent[] = this.#page.events();
    return { type: 'events', sessionId: this.sessionId, events };
  }

  binary(): Uint8Array {
    return this.#page.msgpack(eventsFrameHead(this.sessionId));
  }

  text(): string {
    return encodeTextFrame(this.message);
  }
}
