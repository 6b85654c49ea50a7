import type { SessionEvent } from '../../shared/index.ts';
import { decodeEventBodies, decodeEventBody, toSessionEvent } from './event-codec.ts';
import { StoreDataError, type CommittedBatch } from './event-store.ts';

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

/**
 * Verify and decode stream entries read from `fromSeq`: ids must be `<seq>-1` with contiguous seqs starting at
 * `fromSeq`, fields `e` (msgpack body) and `t` (commit time, ms). Throws `StoreDataError` on anything else.
 */
export function decodeStreamEntries(sessionId: string, fromSeq: number, entries: RawStreamEntry[]): SessionEvent[] {
  return entries.map(([rawId, fields], index) => {
    const seq = fromSeq + index;
    const where = `session ${sessionId} seq ${seq}`;
    const id = rawId.toString('latin1');
    if (id !== `${seq}-1`) throw new StoreDataError(`${where}: unexpected stream entry id ${id}`);
    let body: Buffer | undefined;
    let time: number | undefined;
    for (let field = 0; field + 1 < fields.length; field += 2) {
      const name = fields[field]!.toString('latin1');
      if (name === 'e') body = fields[field + 1];
      else if (name === 't') time = toInteger(fields[field + 1]!.toString('latin1'), where);
    }
    if (body === undefined || time === undefined) throw new StoreDataError(`${where}: entry lacks field e or t`);
    return toSessionEvent(decodeEventBody(body, where), seq, time);
  });
}

/**
 * Decode a published batch: `<firstSeq>:<time>:<epoch>|` (ASCII) followed by a msgpack array of event bodies.
 * Throws `StoreDataError` when the message is malformed.
 */
/** First seq and epoch of a commit notice, read from its header only (undefined when it has none). */
export function peekNoticeHeader(message: Buffer): { readonly firstSeq: number; readonly epoch: string } | undefined {
  const separator = message.indexOf(SEPARATOR);
  const header = separator < 0 ? null : HEADER.exec(message.toString('latin1', 0, separator));
  if (header === null) return undefined;
  return { firstSeq: Number(header[1]), epoch: header[3]! };
}

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
