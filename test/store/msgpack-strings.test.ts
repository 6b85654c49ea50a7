import fc from 'fast-check';
import { Packr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { decodeEventBody } from '../../server/store/codec/event-codec.ts';
import { stringsAreUtf8 } from '../../server/store/codec/msgpack-strings.ts';
import { StoreDataError } from '../../server/store/event-store.ts';

// The slow path of reading a stored body decodes it with msgpackr, which never throws on bad UTF-8: it must find
// every string of msgpack in any form (what another writer may have stored), and only strings.

const MARK = 'µ'; // two bytes, C2 B5: replaced below by two bytes that are not UTF-8 (a lone continuation and 'A')
const BAD = [0xb5, 0x41];

/**
 * `bytes` with the mark replaced by bad bytes of the same length. The mark is in the last string of every value
 * below, after anything else that could hold C2 B5 (a `false` before a 21-byte fixstr, a float's bytes): only its
 * last occurrence is the mark, and spoiling another would change the structure, not a string.
 */
function spoil(bytes: Uint8Array): Uint8Array {
  const out = Uint8Array.from(bytes);
  const at = Buffer.from(out.buffer).lastIndexOf(Buffer.from(MARK));
  if (at < 0) throw new Error('no mark to spoil');
  out.set(BAD, at);
  return out;
}

const encoders = [
  new Packr({ useRecords: false }),
  new Packr({ useRecords: false, variableMapSize: true }),
  new Packr({ useRecords: false, useFloat32: 1, int64AsType: 'bigint' }),
];

const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true }),
    fc.string({ unit: 'grapheme', maxLength: 80 }),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('stringsAreUtf8: strict UTF-8 of every string in msgpack of any form', () => {
  it('accepts what msgpackr writes, and refuses it once any string holds a bad sequence', () => {
    fc.assert(
      fc.property(json, fc.nat({ max: 2 }), fc.nat({ max: 120 }), (value, which, padding) => {
        const encoder = encoders[which]!;
        const clean = encoder.pack([value, 'x'.repeat(padding)]);
        expect(stringsAreUtf8(clean)).toBe(true);
        // The mark in a string after the value: the walk must step over the value exactly to find it.
        const marked = encoder.pack([value, `${'x'.repeat(padding)}${MARK}`]);
        expect(stringsAreUtf8(spoil(marked))).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('does not read bin or ext payloads as strings, and checks the strings after them', () => {
    const packr = new Packr({ useRecords: false });
    const notText = Uint8Array.from([0xed, 0xa0, 0x80, 0xff]);
    for (const size of [4, 300, 70_000]) {
      const payload = new Uint8Array(size);
      payload.set(notText);
      expect(stringsAreUtf8(packr.pack([Buffer.from(payload), 'after']))).toBe(true);
      expect(stringsAreUtf8(spoil(packr.pack([Buffer.from(payload), `after${MARK}`])))).toBe(false);
    }
    // ext8 (type 5, 3 bytes of bad UTF-8), then fixext 1, then a str8 of 70 bytes, the last two not UTF-8.
    const ext = [0xc7, 0x03, 0x05, 0xed, 0xa0, 0x80, 0xd4, 0x05, 0xff];
    const str = [0xd9, 70, ...new Array<number>(68).fill(0x61)];
    expect(stringsAreUtf8(Uint8Array.from([0x93, ...ext, ...str, 0x61, 0x61]))).toBe(true);
    expect(stringsAreUtf8(Uint8Array.from([0x93, ...ext, ...str, 0xed, 0xa0]))).toBe(false);
  });

  it('finds strings as keys and values of maps of every size, and in arrays of every size', () => {
    const packr = new Packr({ useRecords: false, variableMapSize: true });
    for (const size of [3, 20, 70_000]) {
      const entries = Array.from({ length: size }, (_, index) => [`k${index}`, index] as const);
      const map = Object.fromEntries([...entries, [`last${MARK}`, 1]]);
      expect(stringsAreUtf8(packr.pack(map))).toBe(true);
      expect(stringsAreUtf8(spoil(packr.pack(map)))).toBe(false);
      const array = [...entries.map(([, index]) => index), { v: MARK }];
      expect(stringsAreUtf8(spoil(packr.pack(array)))).toBe(false);
    }
  });

  it('leaves bytes it cannot walk to the decoder, which throws StoreDataError on them', () => {
    for (const bytes of [
      [0x92, 0xc1],
      [0xd9, 0x10, 0x61],
      [0xdc, 0x00],
      [0x92, 0xa8, 0x61],
    ]) {
      expect(stringsAreUtf8(Uint8Array.from(bytes))).toBe(true);
      expect(() => decodeEventBody(Uint8Array.from(bytes), 'cut')).toThrow(StoreDataError);
    }
  });

  it('makes the slow-path decoder refuse a body msgpackr would decode with replaced text', () => {
    const type = [0xa8, ...Buffer.from('app/note')];
    const short = Uint8Array.from([0x92, ...type, 0xa3, 0xe4, 0x41, 0x41]); // msgpackr's JS decoder: U+4041
    const long = Uint8Array.from([0x92, ...type, 0xd9, 100, 0xed, 0xa0, 0x80, ...new Array<number>(97).fill(0x61)]);
    for (const body of [short, long]) {
      expect(() => decodeEventBody(body, 'session s seq 0')).toThrow(/seq 0: a string is not well-formed UTF-8/);
    }
  });
});
