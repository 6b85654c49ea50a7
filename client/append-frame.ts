import type { EventDraft } from '../shared/events.ts';
import { encodeFrame, encodeMsgpackValue } from '../shared/codec.ts';
import { arrayHeaderLength, writeArrayHeader } from '../shared/msgpack-header.ts';
import type { AppendRequest } from '../shared/protocol.ts';

/**
 * An append's frame, encoded once per draft: each draft's msgpack is made the first time it is asked for (the
 * writer's frame budget, or the appender) and kept with the draft, which is frozen, so a draft is encoded once
 * however often its append is sized, sent and re-sent after reconnects.
 */
const encodedDrafts = new WeakMap<EventDraft, Uint8Array>();

/** The msgpack of one frozen draft (cached with it). */
export function encodedDraft(draft: EventDraft): Uint8Array {
  let bytes = encodedDrafts.get(draft);
  if (bytes === undefined) {
    bytes = encodeMsgpackValue(draft);
    encodedDrafts.set(draft, bytes);
  }
  return bytes;
}

/** The msgpack array of an append's drafts, from each draft's cached msgpack. */
export function encodeDraftArray(drafts: readonly EventDraft[]): Uint8Array {
  const parts = drafts.map(encodedDraft);
  const headerBytes = arrayHeaderLength(parts.length);
  let length = headerBytes;
  for (const part of parts) length += part.byteLength;
  const array = new Uint8Array(length);
  writeArrayHeader(array, 0, parts.length);
  let offset = headerBytes;
  for (const part of parts) {
    array.set(part, offset);
    offset += part.byteLength;
  }
  return array;
}

const EMPTY_ARRAY = 0x90;

/** An append request without its events: they come already encoded. */
export type AppendFields = Omit<AppendRequest, 'events'>;

/**
 * The encoded append message with an empty `events` array as its last field: the frame is these bytes with the
 * final empty-array byte replaced by the encoded events. The object is built field by field in one fixed order
 * (msgpackr encodes such an object about 3× faster than one made with spreads).
 */
function encodeHead(fields: AppendFields): Uint8Array {
  const head: { -readonly [K in keyof AppendRequest]?: AppendRequest[K] } = {
    type: 'append',
    id: fields.id,
    sessionId: fields.sessionId,
  };
  if (fields.expectedSeq !== undefined) head.expectedSeq = fields.expectedSeq;
  if (fields.idempotencyKey !== undefined) head.idempotencyKey = fields.idempotencyKey;
  if (fields.after !== undefined) head.after = fields.after;
  if (fields.time !== undefined) head.time = fields.time;
  head.events = [];
  const bytes = encodeFrame(head as AppendRequest);
  if (bytes[bytes.length - 1] !== EMPTY_ARRAY) throw new Error('unexpected encoding of an append message');
  return bytes;
}

/**
 * The binary frame of an append whose events are already encoded (`encodeDraftArray`): the same message as
 * `encodeFrame({ ...fields, events })`, with `events` as the last field, so only the few other fields are encoded
 * per send.
 */
export function encodeAppendFrame(fields: AppendFields, events: Uint8Array): Uint8Array {
  const head = encodeHead(fields);
  const frame = new Uint8Array(head.length - 1 + events.byteLength);
  frame.set(head.subarray(0, head.length - 1), 0);
  frame.set(events, head.length - 1);
  return frame;
}

/** The byte length `encodeAppendFrame(fields, events)` gives, without building the frame. */
export function appendFrameBytes(fields: AppendFields, events: Uint8Array): number {
  return encodeHead(fields).byteLength - 1 + events.byteLength;
}
