import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StoreDataError } from '../../server/store/event-store.ts';
import { StoreTrimmedError } from '../../server/store/trimmed-error.ts';
import { streamEntryParts, type RawStreamEntry } from '../../server/store/redis/redis-entries.ts';
import {
  parsePageReplies,
  RespProtocolError,
  RespReplyError,
  RespReplyScanner,
} from '../../server/store/redis/resp-page.ts';

// The catch-up connection reads GET epoch, XRANGE, HGET idem '' (the base), GET epoch in raw RESP. What it makes of the replies must be
// what the ioredis path makes of the same entries (`streamEntryParts`), whatever pieces the bytes arrive in.

type Resp = string | null | Resp[] | { error: string };

function resp(value: Resp): Buffer {
  if (value === null) return Buffer.from('$-1\r\n');
  if (typeof value === 'string')
    return Buffer.concat([
      Buffer.from(`$${Buffer.byteLength(value, 'latin1')}\r\n`),
      Buffer.from(value, 'latin1'),
      Buffer.from('\r\n'),
    ]);
  if (Array.isArray(value)) return Buffer.concat([Buffer.from(`*${value.length}\r\n`), ...value.map(resp)]);
  return Buffer.from(`-${value.error}\r\n`);
}

/** Stream entries as RESP values and as ioredis hands them over. */
function entries(bodies: string[], fromSeq: number, time = '1700000000123'): { resp: Resp[]; raw: RawStreamEntry[] } {
  const list = bodies.map((body, index) => [`${fromSeq + index}-1`, ['e', body, 't', time]] as const);
  return {
    resp: list.map(([id, fields]) => [id, [...fields]]),
    raw: list.map(([id, fields]) => [Buffer.from(id), fields.map((field) => Buffer.from(field, 'latin1'))]),
  };
}

/** Feed `bytes` to a scanner in the given pieces, as a growing buffer; the offset where it saw the replies end. */
function scanInPieces(bytes: Buffer, replies: number, cuts: number[]): number {
  const scanner = new RespReplyScanner(replies);
  const buffer = Buffer.alloc(bytes.length + 16, 0x0d); // spare capacity holds CRs: the scan must not read it
  let length = 0;
  for (const cut of [...cuts.filter((at) => at > 0 && at < bytes.length).sort((a, b) => a - b), bytes.length]) {
    if (cut <= length) continue;
    bytes.copy(buffer, length, length, cut);
    length = cut;
    const end = scanner.scan(buffer, length);
    if (end >= 0) return end;
  }
  return -1;
}

const body = fc.string({ unit: 'binary', maxLength: 300 }).map((text) => Buffer.from(text, 'utf8').toString('latin1'));

describe('catch-up pages in raw RESP', () => {
  it('finds where the replies end, in any pieces, and reads the entries streamEntryParts reads', () => {
    fc.assert(
      fc.property(
        fc.array(body, { maxLength: 20 }),
        fc.nat({ max: 1_000_000 }),
        fc.array(fc.nat({ max: 8_000 }), { maxLength: 12 }),
        fc.option(fc.constantFrom('epoch-1', 'Zx_9-q'), { nil: null }),
        fc.constantFrom(null, '', '0'),
        (texts, fromSeq, cuts, epoch, base) => {
          const { resp: stream, raw } = entries(texts, fromSeq);
          const bytes = Buffer.concat([resp(epoch), resp(stream), resp(base), resp(epoch), resp('next reply')]);
          const end = bytes.length - resp('next reply').length;
          expect(scanInPieces(bytes, 4, cuts)).toBe(end);
          const page = parsePageReplies(bytes.subarray(0, end), 's', fromSeq);
          // A session without an epoch reads as empty (as on the MULTI path), whatever its stream holds.
          const expected = epoch === null ? { bodies: [], times: [] } : streamEntryParts('s', fromSeq, raw);
          expect(page.bodies.map((bodyBytes) => Buffer.from(bodyBytes))).toEqual(expected.bodies);
          expect(page.times).toEqual(expected.times);
          expect([page.epochBefore, page.epochAfter]).toEqual([epoch ?? '', epoch ?? '']);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('waits for a reply cut anywhere, byte by byte', () => {
    const { resp: stream } = entries(['\x92\xa1t\x01', 'x'.repeat(70)], 7);
    const bytes = Buffer.concat([resp(null), resp(stream), resp('e')]);
    const scanner = new RespReplyScanner(3);
    for (let length = 0; length < bytes.length; length++) expect(scanner.scan(bytes, length)).toBe(-1);
    expect(scanner.scan(bytes, bytes.length)).toBe(bytes.length);
  });

  it('refuses what streamEntryParts refuses, with the same errors', () => {
    const cases: RawStreamEntry[][] = [
      [[Buffer.from('5-1'), [Buffer.from('e'), Buffer.from('x'), Buffer.from('t'), Buffer.from('1')]]], // gap
      [[Buffer.from('0-2'), [Buffer.from('e'), Buffer.from('x'), Buffer.from('t'), Buffer.from('1')]]], // foreign id
      [[Buffer.from('0-1'), [Buffer.from('e'), Buffer.from('x')]]], // no time
      [[Buffer.from('0-1'), [Buffer.from('t'), Buffer.from('1')]]], // no body
      [[Buffer.from('0-1'), [Buffer.from('e'), Buffer.from('x'), Buffer.from('t'), Buffer.from('01')]]],
      [[Buffer.from('0-1'), [Buffer.from('e'), Buffer.from('x'), Buffer.from('t'), Buffer.from('9007199254740993')]]],
    ];
    for (const raw of cases) {
      const stream: Resp[] = raw.map(([id, fields]) => [
        id.toString('latin1'),
        fields.map((f) => f.toString('latin1')),
      ]);
      const bytes = Buffer.concat([resp('e'), resp(stream), resp(''), resp('e')]);
      const thrown = (() => {
        try {
          streamEntryParts('s', 0, raw);
        } catch (error) {
          return error as Error;
        }
        return undefined;
      })();
      expect(thrown).toBeInstanceOf(StoreDataError);
      expect(() => parsePageReplies(bytes, 's', 0)).toThrow(thrown!.message);
    }
  });

  it('reads a session without an epoch as empty without looking at its entries, as the MULTI path does', () => {
    const { resp: corrupt } = entries(['x'], 5); // ids from 5: wrong for a read from 0
    const bytes = Buffer.concat([resp(null), resp(corrupt), resp('9'), resp(null)]);
    expect(parsePageReplies(bytes, 's', 0)).toEqual({ epochBefore: '', epochAfter: '', bodies: [], times: [] });
    const refused = Buffer.concat([resp(null), resp({ error: 'WRONGTYPE not a stream' }), resp(null), resp(null)]);
    expect(() => parsePageReplies(refused, 's', 0)).toThrow(RespReplyError);
    expect(() => parsePageReplies(Buffer.concat([resp('e'), resp(corrupt), resp(''), resp('e')]), 's', 0)).toThrow(
      StoreDataError,
    );
  });

  it('throws StoreTrimmedError with the first seq for a read below the base, whatever the entries, in one epoch', () => {
    const trimmedAt = (bytes: Buffer, fromSeq: number): unknown => {
      try {
        parsePageReplies(bytes, 's', fromSeq);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const { resp: fromFive } = entries(['a', 'b'], 5);
    // Entries from the base on (a read from 2 sees them start at 5), none (all trimmed), or past a gap: all GONE.
    for (const stream of [fromFive, [], entries(['a'], 9).resp]) {
      const error = trimmedAt(Buffer.concat([resp('e'), resp(stream), resp('5'), resp('e')]), 2);
      expect(error).toBeInstanceOf(StoreTrimmedError);
      expect(error).toMatchObject({ code: 'GONE', firstSeq: 5 });
    }
    // From the base on, the page reads as always.
    const page = parsePageReplies(Buffer.concat([resp('e'), resp(fromFive), resp('5'), resp('e')]), 's', 5);
    expect(page.bodies.map((bytes) => Buffer.from(bytes).toString())).toEqual(['a', 'b']);
    // The epoch changed meanwhile: no verdict (the store reads the page again in MULTI).
    const moved = parsePageReplies(Buffer.concat([resp('e'), resp(fromFive), resp('5'), resp('f')]), 's', 2);
    expect(moved).toEqual({ epochBefore: 'e', epochAfter: 'f', bodies: [], times: [] });
    // A base that is not a seq is corrupt data.
    expect(trimmedAt(Buffer.concat([resp('e'), resp([]), resp('5x'), resp('e')]), 0)).toBeInstanceOf(StoreDataError);
  });

  it('turns an error reply into a ReplyError (the store maps LOADING and the like), and garbage into a protocol error', () => {
    const loading = Buffer.concat([resp({ error: 'LOADING Redis is loading' }), resp([]), resp(null), resp(null)]);
    expect(new RespReplyScanner(4).scan(loading, loading.length)).toBe(loading.length);
    expect(() => parsePageReplies(loading, 's', 0)).toThrow(RespReplyError);
    expect(() => parsePageReplies(loading, 's', 0)).toThrow('LOADING Redis is loading');
    expect(() => new RespReplyScanner(1).scan(Buffer.from('?what\r\n'), 7)).toThrow(RespProtocolError);
    expect(() => new RespReplyScanner(1).scan(Buffer.from('$12a\r\n'), 6)).toThrow(RespProtocolError);
    // A stream that lost its place: a line or a bulk string not ended by CR LF.
    expect(() => new RespReplyScanner(1).scan(Buffer.from('+OK\rX\r\n'), 7)).toThrow(RespProtocolError);
    expect(() => new RespReplyScanner(1).scan(Buffer.from('$1\r\nab\r\n'), 8)).toThrow(RespProtocolError);
  });
});
