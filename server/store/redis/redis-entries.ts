import type { SessionEvent } from '../../../shared/index.ts';
import { decodeEventBodies, decodeEventBody, toSessionEvent } from '../codec/event-codec.ts';
import { StoreDataError, type CommittedBatch } from '../event-store.ts';

/** One XRANGE entry as ioredis returns it with the Buffer variant: [id, [field, value, ...]]. */
export type RawStreamEntry = [id: Buffer, fields: Buffer[]];

const SEPARATOR = 0x7c; // '|'
const TIME = /^(0|[1-9][0-9]{0,15})$/;
const HEADER = /^(0|[1-9][0-9]{0,15}):(0|[1-9][0-9]{0,15}):([A-Za-z0-9_-]{1,64})$/;

function toInteger(text: string, where: string): number {
  const value = Number(text);
  if (!TIME.test(text) || !Number.isSafeInteger(value)) throw new StoreDataError(`${where}: bad integer ${text}`);
  return value;
}

const DIGIT_0 = 0x30;
const DASH = 0x2d;
export const FIELD_BODY = 0x65; // 'e'
export const FIELD_TIME = 0x74; // 't'

/** Whether `bytes[start..end)` is exactly the entry id `<seq>-1` (the decimal form of seq, no leading zero). */
export function isEntryIdAt(bytes: Uint8Array, start: number, end: number, seq: number): boolean {
  const digits = end - start - 2;
  if (digits < 1 || digits > 16 || bytes[start + digits] !== DASH || bytes[start + digits + 1] !== DIGIT_0 + 1) {
    return false;
  }
  if (bytes[start] === DIGIT_0 && digits > 1) return false;
  let value = 0;
  for (let index = start; index < start + digits; index++) {
    const digit = bytes[index]! - DIGIT_0;
    if (digit < 0 || digit > 9) return false;
    value = value * 10 + digit;
  }
  return value === seq;
}

/** The decimal time in `bytes[start..end)`: at most 16 digits, no leading zero, a safe integer; -1 otherwise. */
export function parseTimeAt(bytes: Uint8Array, start: number, end: number): number {
  const digits = end - start;
  if (digits < 1 || digits > 16 || (bytes[start] === DIGIT_0 && digits > 1)) return -1;
  let value = 0;
  for (let index = start; index < end; index++) {
    const digit = bytes[index]! - DIGIT_0;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return Number.isSafeInteger(value) ? value : -1;
}

/**
 * The verified parts of stream entries read from `fromSeq`: ids must be `<seq>-1` with contiguous seqs starting
 * at `fromSeq`, fields `e` (msgpack body) and `t` (commit time, ms). Throws `StoreDataError` on anything else.
 * The bodies are not looked at.
 */
export function streamEntryParts(
  sessionId: string,
  fromSeq: number,
  entries: RawStreamEntry[],
): { bodies: Buffer[]; times: number[] } {
  const bodies: Buffer[] = [];
  const times: number[] = [];
  for (let index = 0; index < entries.length; index++) {
    const [rawId, fields] = entries[index]!;
    const seq = fromSeq + index;
    if (!isEntryIdAt(rawId, 0, rawId.length, seq)) {
      throw new StoreDataError(
        `session ${sessionId} seq ${seq}: unexpected stream entry id ${rawId.toString('latin1')}`,
      );
    }
    let body: Buffer | undefined;
    let time: number | undefined;
    for (let field = 0; field + 1 < fields.length; field += 2) {
      const name = fields[field]!;
      if (name.length !== 1) continue;
      if (name[0] === FIELD_BODY) body = fields[field + 1];
      else if (name[0] === FIELD_TIME) {
        const text = fields[field + 1]!;
        time = parseTimeAt(text, 0, text.length);
        if (time < 0)
          throw new StoreDataError(`session ${sessionId} seq ${seq}: bad integer ${text.toString('latin1')}`);
      }
    }
    if (body === undefined || time === undefined) {
      throw new StoreDataError(`session ${sessionId} seq ${seq}: entry lacks field e or t`);
    }
    bodies.push(body);
    times.push(time);
  }
  return { bodies, times };
}

/**
 * Verify and decode stream entries read from `fromSeq` (see `streamEntryParts`); the bodies are verified and
 * decoded by the event codec. Throws `StoreDataError` on anything else.
 */
export function decodeStreamEntries(sessionId: string, fromSeq: number, entries: RawStreamEntry[]): SessionEvent[] {
  const { bodies, times } = streamEntryParts(sessionId, fromSeq, entries);
  return bodies.map((body, index) => {
    const seq = fromSeq + index;
    return toSessionEvent(decodeEventBody(body, `session ${sessionId} seq ${seq}`), seq, times[index]!);
  });
}

/** First seq and epoch of a commit notice, read from its header only (undefined when it has none). */
export function peekNoticeHeader(message: Buffer): { readonly firstSeq: number; readonly epoch: string } | undefined {
  const separator = message.indexOf(SEPARATOR);
  const header = separator < 0 ? null : HEADER.exec(message.toString('latin1', 0, separator));
  if (header === null) return undefined;
  return { firstSeq: Number(header[1]), epoch: header[3]! };
}

/**
 * Decode a published batch: `<firstSeq>:<time>:<epoch>|` (ASCII) followed by a msgpack array of event bodies.
 * Throws `StoreDataError` when the message is malformed.
 */
export function decodeCommittedMessage(sessionId: string, message: Buffer): CommittedBatch {
  const where = `notification for session ${sessionId}`;
  const separator = message.indexOf(SEPARATOR);
  const header = separator < 0 ? undefined : HEADER.exec(message.toString('latin1', 0, separator));
  if (header === undefined || header === null) throw new StoreDataError(`${where}: bad header`);
  const firstSeq = toInteger(header[1]!, where);
  const time = toInteger(header[2]!, where);
  const drafts = decodeEventBodies(message.subarray(separator + 1), where);
  if (drafts.length === 0) throw new StoreDataError(`${where}: empty batch`);
  const events = drafts.map((draft, index) => toSessionEvent(draft, firstSeq + index, time));
  return { sessionId, epoch: header[3]!, events };
}

/** An idempotency record `first:last:time` (the commit script's) as numbers. */
export function parseSeqRecord(text: string): { firstSeq: number; lastSeq: number; time: number } {
  const [first, last, time] = text.split(':');
  return { firstSeq: Number(first), lastSeq: Number(last), time: Number(time) };
}
