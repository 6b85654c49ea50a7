/**
 * The catch-up page read in raw RESP (redis-page-connection.ts): where the replies end in a growing buffer, and
 * the page they hold, without an object per stream entry beyond its body's `Buffer` (ioredis builds two arrays and
 * five `Buffer`s per entry, and in the hub those survived scavenges: docs/performance.md, "Catch-up reads in raw
 * RESP"). Pure: no I/O.
 */

import { StoreDataError, type StoredPage } from '../event-store.ts';
import { checkNotTrimmed } from '../trimmed-error.ts';
import { FIELD_BODY, FIELD_TIME, isEntryIdAt, parseTimeAt } from './redis-entries.ts';
import { parseBase } from './redis-trim.ts';
import { endsPage } from '../page-bytes.ts';

const CR = 0x0d;
const LF = 0x0a;
const BULK = 0x24; // '$'
const ARRAY = 0x2a; // '*'
const ERROR = 0x2d; // '-'
const SIMPLE = 0x2b; // '+'
const INTEGER = 0x3a; // ':'

/** A Redis error reply, named like ioredis's so that the store maps it the same way (`toStoreError`). */
export class RespReplyError extends Error {
  override readonly name = 'ReplyError';
}

/** The server sent bytes that are not RESP 2: the connection cannot be trusted any more. */
export class RespProtocolError extends Error {
  override readonly name = 'RespProtocolError';
}

/**
 * Finds where `replies` top-level RESP values end in bytes that arrive in pieces. Resumable: `scan` continues
 * where the previous call stopped, so every byte of a large reply is looked at once.
 */
export class RespReplyScanner {
  #pos = 0;
  /** Values still to skip in the current reply (an array adds its items). */
  #pending = 0;
  #replies: number;

  constructor(replies: number) {
    this.#replies = replies;
  }

  /**
   * The offset just past the last reply, or -1 until `bytes[0..length)` holds all of them. `bytes` must end at
   * `length` (a view, not a buffer with spare capacity: the line search would read that too).
   */
  scan(bytes: Uint8Array, length: number): number {
    for (;;) {
      if (this.#pending === 0) {
        if (this.#replies === 0) return this.#pos;
        this.#replies--;
        this.#pending = 1;
      }
      const pos = this.#pos;
      if (pos >= length) return -1;
      const lineEnd = bytes.indexOf(CR, pos + 1);
      if (lineEnd < 0 || lineEnd + 1 >= length) return -1;
      if (bytes[lineEnd + 1] !== LF) throw new RespProtocolError('a RESP line without CR LF');
      const type = bytes[pos]!;
      if (type === BULK) {
        const size = readInteger(bytes, pos + 1, lineEnd);
        const next = size < 0 ? lineEnd + 2 : lineEnd + 2 + size + 2;
        if (next > length) return -1;
        if (size >= 0 && (bytes[next - 2] !== CR || bytes[next - 1] !== LF)) {
          throw new RespProtocolError('a RESP bulk string without CR LF');
        }
        this.#pos = next;
        this.#pending--;
      } else if (type === ARRAY) {
        this.#pos = lineEnd + 2;
        this.#pending += Math.max(0, readInteger(bytes, pos + 1, lineEnd)) - 1;
      } else if (type === SIMPLE || type === ERROR || type === INTEGER) {
        this.#pos = lineEnd + 2;
        this.#pending--;
      } else {
        throw new RespProtocolError(`unexpected RESP type byte 0x${type.toString(16)}`);
      }
    }
  }
}

/** The decimal integer in `bytes[start..end)` (RESP lengths; `-1` for nil). */
function readInteger(bytes: Uint8Array, start: number, end: number): number {
  const negative = bytes[start] === ERROR;
  const first = negative ? start + 1 : start;
  if (end <= first || end - first > 15) throw new RespProtocolError('bad RESP length');
  let value = 0;
  for (let index = first; index < end; index++) {
    const digit = bytes[index]! - 0x30;
    if (digit < 0 || digit > 9) throw new RespProtocolError('bad RESP length');
    value = value * 10 + digit;
  }
  return negative ? -value : value;
}

/** A cursor over complete replies (the scanner has seen them end). */
class ReplyReader {
  pos = 0;
  constructor(readonly bytes: Buffer) {}

  /** The next header's type and its integer (length or count); throws the error of an error reply. */
  header(): { type: number; value: number; body: number } {
    const { bytes } = this;
    const type = bytes[this.pos]!;
    const lineEnd = bytes.indexOf(CR, this.pos + 1);
    if (type === ERROR) throw new RespReplyError(bytes.toString('utf8', this.pos + 1, lineEnd));
    if (type !== BULK && type !== ARRAY) throw new RespProtocolError(`unexpected reply type 0x${type.toString(16)}`);
    const value = readInteger(bytes, this.pos + 1, lineEnd);
    this.pos = lineEnd + 2;
    return { type, value, body: this.pos };
  }

  /** A bulk string's offsets (start, end); `undefined` for nil. */
  bulk(): [number, number] | undefined {
    const { type, value, body } = this.header();
    if (type !== BULK) throw new RespProtocolError('expected a bulk string');
    if (value < 0) return undefined;
    this.pos = body + value + 2;
    return [body, body + value];
  }

  array(): number {
    const { type, value } = this.header();
    if (type !== ARRAY) throw new RespProtocolError('expected an array');
    return Math.max(0, value);
  }
}

/** The page's parts, with the epoch read before and after the `XRANGE` (`''` when none). */
export interface RespPage extends Pick<StoredPage, 'bodies' | 'times' | 'truncated'> {
  readonly epochBefore: string;
  readonly epochAfter: string;
}

const TIME_FIELD_BYTES = 16;

/**
 * Parse the replies of `GET epoch`, `XRANGE log <fromSeq>-0 + COUNT n`, `HGET idem ''` (the base: the first seq the
 * stream holds, redis-trim.ts), `GET epoch`. Entries are checked as `streamEntryParts` checks them (ids `<seq>-1`
 * from `fromSeq` on, fields `e` and `t`): `StoreDataError` on anything else; an error reply throws
 * `RespReplyError`. With the same epoch before and after, `fromSeq` below the base throws `StoreTrimmedError`
 * (before the entries' check: a page below the base starts later). The bodies are views of `bytes`.
 *
 * With `maxBytes`, the page ends before the first entry (after the first) that would take its entries past
 * `maxBytes`, measured as the bounded script measures them (redis-bounded-read-scripts.ts: the length of every field
 * value but a `t` of at most 16 bytes), and is `truncated`; the entries left out are not checked, as the script
 * does not look at them either.
 */
export function parsePageReplies(bytes: Buffer, sessionId: string, fromSeq: number, maxBytes?: number): RespPage {
  const reader = new ReplyReader(bytes);
  const epochBefore = epochText(bytes, reader.bulk());
  if (epochBefore === '') {
    // A session without an epoch reads as empty, whatever its stream holds: its entries are not looked at.
    skipReply(reader);
    skipReply(reader);
    return { epochBefore, epochAfter: epochText(bytes, reader.bulk()), bodies: [], times: [] };
  }
  const entriesAt = reader.pos;
  let parts: Pick<StoredPage, 'bodies' | 'times' | 'truncated'> | undefined;
  let invalid: unknown;
  try {
    parts = parseEntries(reader, sessionId, fromSeq, maxBytes);
  } catch (error) {
    if (!(error instanceof StoreDataError)) throw error;
    invalid = error; // maybe a page below the base: the base says
    reader.pos = entriesAt;
    skipReply(reader);
  }
  const base = reader.bulk();
  const epochAfter = epochText(bytes, reader.bulk());
  if (epochAfter !== epochBefore) return { epochBefore, epochAfter, bodies: [], times: [] }; // read again
  const firstSeq = parseBase(base === undefined ? undefined : bytes.subarray(base[0], base[1]));
  checkNotTrimmed(sessionId, fromSeq, firstSeq, epochBefore);
  if (parts === undefined) throw invalid;
  return { epochBefore, epochAfter, ...parts };
}

/** Skip one complete reply; an error reply throws, as MULTI's EXEC would. */
function skipReply(reader: ReplyReader): void {
  const { bytes } = reader;
  if (bytes[reader.pos] === ERROR) reader.header();
  reader.pos += new RespReplyScanner(1).scan(bytes.subarray(reader.pos), bytes.length - reader.pos);
}

/** The `XRANGE` reply's entries, checked (see `parsePageReplies`). */
function parseEntries(
  reader: ReplyReader,
  sessionId: string,
  fromSeq: number,
  maxBytes: number | undefined,
): Pick<StoredPage, 'bodies' | 'times' | 'truncated'> {
  const { bytes } = reader;
  const count = reader.array();
  const bodies: Buffer[] = [];
  const times: number[] = [];
  let total = 0;
  let truncated = false;
  for (let index = 0; index < count; index++) {
    const seq = fromSeq + index;
    const start = reader.pos;
    if (reader.array() !== 2) throw new StoreDataError(`session ${sessionId} seq ${seq}: malformed stream entry`);
    const [idStart, idEnd] = reader.bulk() ?? [0, 0];
    let body: Buffer | undefined;
    let time = -2;
    let badTime: string | undefined;
    let size = 0;
    const fields = reader.array();
    for (let field = 0; field + 1 < fields; field += 2) {
      const [nameStart, nameEnd] = reader.bulk() ?? [0, 0];
      const [valueStart, valueEnd] = reader.bulk() ?? [0, 0];
      const isTime = nameEnd - nameStart === 1 && bytes[nameStart] === FIELD_TIME;
      if (!isTime || valueEnd - valueStart > TIME_FIELD_BYTES) size += valueEnd - valueStart;
      if (nameEnd - nameStart !== 1 || badTime !== undefined) continue;
      if (bytes[nameStart] === FIELD_BODY) body = bytes.subarray(valueStart, valueEnd);
      else if (isTime) time = parseTimeAt(bytes, valueStart, valueEnd);
      if (time === -1) badTime = bytes.toString('latin1', valueStart, valueEnd);
    }
    if (fields % 2 === 1) reader.bulk();
    if (endsPage(index, total, size, maxBytes)) {
      reader.pos = start;
      skipValues(reader, count - index);
      truncated = true;
      break;
    }
    total += size;
    if (!isEntryIdAt(bytes, idStart, idEnd, seq)) {
      const id = bytes.toString('latin1', idStart, idEnd);
      throw new StoreDataError(`session ${sessionId} seq ${seq}: unexpected stream entry id ${id}`);
    }
    if (badTime !== undefined) throw new StoreDataError(`session ${sessionId} seq ${seq}: bad integer ${badTime}`);
    if (body === undefined || time < 0)
      throw new StoreDataError(`session ${sessionId} seq ${seq}: entry lacks field e or t`);
    bodies.push(body);
    times.push(time);
  }
  return truncated ? { bodies, times, truncated } : { bodies, times };
}

/** Move `reader` past `values` complete RESP values (arrays with their items). */
function skipValues(reader: ReplyReader, values: number): void {
  const { bytes } = reader;
  reader.pos += new RespReplyScanner(values).scan(bytes.subarray(reader.pos), bytes.length - reader.pos);
}

function epochText(bytes: Buffer, range: [number, number] | undefined): string {
  return range === undefined ? '' : bytes.toString('utf8', range[0], range[1]);
}
