import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NOT_CANONICAL, scanUtf8, scanUtf8InJs } from '../../server/store/codec/msgpack-scan.ts';

// Stored strings are checked as strict UTF-8 before a page is forwarded as it is: in JavaScript below 64 bytes,
// by Node's validator from 64 on. Both must agree with the WHATWG decoder in fatal mode (no overlong forms, no
// surrogates, nothing above U+10FFFF) on every input, at both sides of the threshold.
const strict = new TextDecoder('utf-8', { fatal: true });

function isStrictUtf8(bytes: Uint8Array): boolean {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Both scans of `bytes` placed after a 3-byte prefix and before a 2-byte suffix (offsets and bounds matter). */
function scans(bytes: Uint8Array): { js: number; chosen: number; expected: number } {
  const framed = new Uint8Array(bytes.length + 5);
  framed.set(bytes, 3);
  const expected = isStrictUtf8(bytes) ? 3 + bytes.length : NOT_CANONICAL;
  return {
    js: scanUtf8InJs(framed, 3, 3 + bytes.length),
    chosen: scanUtf8(framed, 3, bytes.length, framed.length),
    expected,
  };
}

const ASCII_PAD = new Uint8Array(70).fill(0x61);

/** The same bytes short (JavaScript path) and padded past the threshold (native path), padding on either side. */
function shortAndLong(bytes: Uint8Array): Uint8Array[] {
  const before = new Uint8Array(ASCII_PAD.length + bytes.length);
  before.set(ASCII_PAD);
  before.set(bytes, ASCII_PAD.length);
  const after = new Uint8Array(ASCII_PAD.length + bytes.length);
  after.set(bytes);
  after.set(ASCII_PAD, bytes.length);
  return [bytes, before, after];
}

describe('strict UTF-8 of stored strings', () => {
  it('refuses overlong forms, surrogates, code points above U+10FFFF and cut sequences, on both paths', () => {
    const cases: [number[], boolean][] = [
      [[0x41], true],
      [[0xc3, 0xa9], true], // é
      [[0xe6, 0x96, 0x87], true], // 文
      [[0xf0, 0x9f, 0x98, 0x80], true], // 😀
      [[0xf4, 0x8f, 0xbf, 0xbf], true], // U+10FFFF
      [[0xed, 0x9f, 0xbf], true], // U+D7FF
      [[0xee, 0x80, 0x80], true], // U+E000
      [[0xc0, 0x80], false], // overlong NUL
      [[0xc1, 0xbf], false],
      [[0xe0, 0x80, 0x80], false],
      [[0xe0, 0x9f, 0xbf], false],
      [[0xf0, 0x80, 0x80, 0x80], false],
      [[0xf0, 0x8f, 0xbf, 0xbf], false],
      [[0xed, 0xa0, 0x80], false], // U+D800
      [[0xed, 0xbf, 0xbf], false], // U+DFFF
      [[0xf4, 0x90, 0x80, 0x80], false], // U+110000
      [[0xf5, 0x80, 0x80, 0x80], false],
      [[0xf8, 0x88, 0x80, 0x80, 0x80], false],
      [[0x80], false],
      [[0xc3], false],
      [[0xe6, 0x96], false],
      [[0xf0, 0x9f, 0x98], false],
      [[0xc3, 0x41], false],
      [[0xff], false],
    ];
    for (const [raw, valid] of cases) {
      for (const bytes of shortAndLong(Uint8Array.from(raw))) {
        const { js, chosen, expected } = scans(bytes);
        expect(expected === NOT_CANONICAL).toBe(!valid);
        expect(js).toBe(expected);
        expect(chosen).toBe(expected);
      }
    }
  });

  it('agrees with the fatal decoder on random bytes and on valid text with bytes changed', () => {
    const nearlyText = fc
      .tuple(
        fc.string({ unit: 'binary', maxLength: 120 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 3 }),
      )
      .map(([text, changes]) => {
        const bytes = new TextEncoder().encode(text);
        for (const [at, value] of changes) if (bytes.length > 0) bytes[at % bytes.length] = value;
        return bytes;
      });
    const anyBytes = fc.uint8Array({ maxLength: 200 });
    fc.assert(
      fc.property(fc.oneof(nearlyText, anyBytes), (input) => {
        for (const bytes of shortAndLong(input)) {
          const { js, chosen, expected } = scans(bytes);
          expect(js).toBe(expected);
          expect(chosen).toBe(expected);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('never reads past the end it is given', () => {
    const bytes = new TextEncoder().encode('a'.repeat(100));
    expect(scanUtf8(bytes, 0, 100, 99)).toBe(NOT_CANONICAL);
    expect(scanUtf8(bytes, 50, 10, 59)).toBe(NOT_CANONICAL);
    expect(scanUtf8(bytes, 0, 100, 100)).toBe(100);
  });
});
