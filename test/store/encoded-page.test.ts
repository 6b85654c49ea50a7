import fc from 'fast-check';
import { Packr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { freezeJson, type SurfaceOp } from '../../shared/index.ts';
import { encodeMsgpackValue } from '../../shared/codec.ts';
import { encodeEventBody } from '../../server/store/codec/event-codec.ts';
import type { ValidatedDraft } from '../../server/store/event-store.ts';
import { MARKS_PER_BODY, scanEventBody, uintLength, writeUint } from '../../server/store/codec/event-splice.ts';
import { decodeStreamEntries, streamEntryParts, type RawStreamEntry } from '../../server/store/redis/redis-entries.ts';
import { EncodedEventPage } from '../../server/store/codec/encoded-page.ts';
import { storedPageOf } from '../../server/store/memory/memory-store.ts';

const TIME = 1_767_225_600_123; // beyond 32 bits: a float64 on the wire

function entry(seq: number, body: Uint8Array, time = TIME): RawStreamEntry {
  return [Buffer.from(`${seq}-1`), [Buffer.from('e'), Buffer.from(body), Buffer.from('t'), Buffer.from(String(time))]];
}

function draft(
  data: unknown,
  extra: { surfaceOp?: SurfaceOp; sourceEventSeqs?: readonly number[] } = {},
): ValidatedDraft {
  return { type: 'test/event', data: freezeJson(data), ...extra };
}

/** The Redis engine's stored page of these entries, made into the page catch-up sends. */
function encodedStreamPage(entries: RawStreamEntry[], fromSeq: number): EncodedEventPage {
  return new EncodedEventPage('s', { epoch: 'epoch', firstSeq: fromSeq, ...streamEntryParts('s', fromSeq, entries) });
}

/** The old path: decode and verify every entry, then encode the events with the wire codec. */
function oldPath(entries: RawStreamEntry[], fromSeq = 0): Uint8Array {
  return encodeMsgpackValue(decodeStreamEntries('s', fromSeq, entries));
}

function scans(body: Uint8Array): boolean {
  return scanEventBody(body, new Int32Array(MARKS_PER_BODY), 0);
}

/** Splice and decode the same entries; both must give the same bytes and values. */
async function expectSameAsOldPath(entries: RawStreamEntry[], fromSeq = 0): Promise<void> {
  const page = encodedStreamPage(entries, fromSeq);
  expect(Buffer.from(page.msgpack()).equals(Buffer.from(oldPath(entries, fromSeq)))).toBe(true);
  expect(page.events()).toEqual(decodeStreamEntries('s', fromSeq, entries));
  expect(page.count).toBe(entries.length);
  expect(page.firstSeq).toBe(fromSeq);
  expectSlicesAndSizes(page, entries, fromSeq);
  // The memory engine's stored page of the same events (its bodies encoded from the events): the same bytes.
  const stored = storedPageOf('epoch', fromSeq, page.events());
  expect(stored.firstSeq).toBe(fromSeq);
  const again = new EncodedEventPage('s', stored);
  expect(Buffer.from(again.msgpack()).equals(Buffer.from(oldPath(entries, fromSeq)))).toBe(true);
  expectSlicesAndSizes(again, entries, fromSeq);
}

/** Every cut of the page gives the bytes of its entries alone; `eventBytes` never undercounts an event. */
function expectSlicesAndSizes(page: EncodedEventPage, entries: RawStreamEntry[], fromSeq: number): void {
  const events = page.events();
  events.forEach((event, index) => {
    expect(page.eventBytes(index)).toBeGreaterThanOrEqual(encodeMsgpackValue(event).byteLength);
  });
  for (let cut = 0; cut <= entries.length; cut++) {
    for (const [start, end] of [
      [0, cut],
      [cut, entries.length],
    ] as const) {
      const part = page.slice(start, end);
      expect(part.count).toBe(end - start);
      if (part.count === 0) continue;
      expect(part.firstSeq).toBe(fromSeq + start);
      const expected = oldPath(entries.slice(start, end), fromSeq + start);
      expect(Buffer.from(part.msgpack()).equals(Buffer.from(expected))).toBe(true);
    }
  }
}

const utf8Cases = [
  'plain ascii',
  'é à ü ß ñ',
  '日本語のテキスト',
  'emoji 😀🎉👩‍👩‍👧 and 𝄞',
  '',
  'x'.repeat(31),
  'x'.repeat(32),
  'é'.repeat(16), // 32 bytes, 16 characters
  'y'.repeat(255),
  'y'.repeat(256),
  '€'.repeat(100), // 300 bytes
  'z'.repeat(65_535),
  'z'.repeat(65_536),
  '\u0000\u007f\u0080\u07ff\u0800\uffff',
];

const numberCases = [
  0,
  1,
  0x7f,
  0x80,
  0xff,
  0x100,
  0xffff,
  0x10000,
  0xffffffff,
  2 ** 32,
  2 ** 40 + 1,
  2 ** 53 - 2,
  2 ** 53 - 1,
  -1,
  -32,
  -33,
  -128,
  -129,
  -32768,
  -32769,
  -(2 ** 31),
  -(2 ** 31) - 1,
  -(2 ** 53 - 1),
  0.5,
  -1.5,
  0.1,
  -1e-300,
  5e-324,
  2 ** 51 + 0.5,
  -(2 ** 31) - 0.5,
  4294967295.5,
];

describe('catch-up pages spliced from stored bodies', () => {
  it('writes seqs and times exactly as msgpackr does', () => {
    for (const value of [...numberCases.filter((n) => Number.isSafeInteger(n) && n >= 0), TIME, 123_456_789_012]) {
      const target = new Uint8Array(9);
      const end = writeUint(target, 0, value);
      expect(end).toBe(uintLength(value));
      expect(Buffer.from(target.subarray(0, end)).equals(Buffer.from(encodeMsgpackValue(value)))).toBe(true);
    }
  });

  it('gives the old bytes and values for strings, numbers, nesting and key orders (all on the fast path)', async () => {
    const datas: unknown[] = [
      ...utf8Cases.map((text) => ({ text, [text.slice(0, 40)]: text.length })),
      ...numberCases.map((value) => ({ value, list: [value, -value || 0] })),
      { a: { b: { c: [[[{ d: [1, 'two', null, true, false, 2.5] }]]] } } },
      [[[[[[[[[[[[[[[[[[[['deep']]]]]]]]]]]]]]]]]]]],
      { b: 1, 2: 'two', 10: 'ten', 1: 'one', a: 'A', 4294967294: 'max index', 4294967295: 'not an index', '01': 'x' },
      { __proto__: null, constructor: 'c', toString: 's' },
      JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as unknown,
      {},
      [],
      Array.from({ length: 16 }, (_, index) => index),
      Array.from({ length: 70_000 }, (_, index) => index % 3),
      Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`key${index}`, index])),
      'just a string',
      12,
      null,
    ];
    const drafts = datas.map((data) => draft(data));
    const bodies = drafts.map(encodeEventBody);
    for (const body of bodies) expect(scans(body)).toBe(true);
    await expectSameAsOldPath(bodies.map((body, index) => entry(index, body)));
  });

  it('gives the old bytes for surface events: append, replace, sourceEventSeqs, at small and large seqs', async () => {
    const replace = (startSeq: number, endSeq: number): SurfaceOp => ({ op: 'replace', startSeq, endSeq });
    const drafts: ValidatedDraft[] = [
      { type: 'user/message', data: freezeJson({ role: 'user', content: 'héllo 👋' }), surfaceOp: 'append' },
      { type: 'user/message', data: freezeJson({ role: 'user', content: 'x' }), surfaceOp: replace(0, 1) },
      {
        type: 'user/message',
        data: freezeJson({ role: 'user', content: 'y' }),
        surfaceOp: replace(2 ** 40, 2 ** 53 - 1),
      },
      {
        type: 'system/summary',
        data: freezeJson({ text: 'summary' }),
        surfaceOp: replace(3, 7),
        sourceEventSeqs: [3, 4, 200, 70_000, 2 ** 33, 2 ** 53 - 1],
      },
      { type: 'system/summary', data: freezeJson({ text: 's' }), sourceEventSeqs: [] },
      {
        type: 'system/summary',
        data: freezeJson({ text: 's' }),
        sourceEventSeqs: Array.from({ length: 20 }, (_, i) => i),
      },
      { type: 'system/summary', data: freezeJson({ text: 's' }), surfaceOp: 'append', sourceEventSeqs: [1] },
    ];
    const bodies = drafts.map(encodeEventBody);
    for (const body of bodies) expect(scans(body)).toBe(true);
    await expectSameAsOldPath(bodies.map((body, index) => entry(index, body)));
    // Seqs and times of every size.
    for (const seq of [0, 127, 128, 65_536, 2 ** 32, 2 ** 53 - 10]) {
      await expectSameAsOldPath([entry(seq, bodies[3]!, seq), entry(seq + 1, bodies[0]!, 0)], seq);
    }
  });

  it('gives the old bytes for random lossless JSON', async () => {
    const key = fc.oneof(
      fc.string({ maxLength: 5 }),
      fc.string({ unit: 'binary', maxLength: 5 }),
      fc.nat({ max: 20 }).map(String),
      fc.constantFrom('__proto__', 'constructor', '01', '4294967295'),
    );
    const value = fc.letrec<{ json: unknown }>((tie) => ({
      json: fc.oneof(
        { depthSize: 'small' },
        fc.constant(null),
        fc.boolean(),
        fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.array(tie('json'), { maxLength: 18 }),
        fc.dictionary(key, tie('json'), { maxKeys: 18 }),
      ),
    })).json;
    await fc.assert(
      fc.asyncProperty(fc.array(value, { minLength: 1, maxLength: 5 }), async (datas) => {
        const valid = datas.flatMap((data) => {
          try {
            return [draft(data)];
          } catch {
            return []; // not lossless JSON (-0, unsafe integers): the core never stores it
          }
        });
        if (valid.length === 0) return;
        const bodies = valid.map(encodeEventBody);
        for (const body of bodies) expect(scans(body)).toBe(true);
        await expectSameAsOldPath(
          bodies.map((body, index) => entry(index + 5, body)),
          5,
        );
      }),
      { numRuns: 300 },
    );
  });

  it('decodes bodies other writers produced the usual way, with the same result as before', async () => {
    const loose = new Packr({ useRecords: false, variableMapSize: true, useFloat32: 1 }); // fixmaps, float32
    /** Each body, and whether it is spliced (true) or decoded and encoded again (false). */
    const cases: [Uint8Array, boolean][] = [
      [loose.pack(['test/event', { a: 1, b: [1.5, 'x'] }]), false],
      [Buffer.from([0x92, 0xa1, 0x74, 0xcc, 0x05]), false], // uint8 holding 5 (msgpackr writes a fixint)
      [Buffer.from([0x92, 0xa1, 0x74, 0xd9, 0x01, 0x78]), false], // str8 holding one byte
      [Buffer.from([0x92, 0xa1, 0x74, 0xcb, 0x40, 0x14, 0, 0, 0, 0, 0, 0]), false], // float64 holding 5
      [Buffer.from([0x92, 0xa1, 0x74, 0xde, 0, 2, 0xa1, 0x62, 1, 0xa1, 0x61, 2]), true], // keys b, a
      [Buffer.from([0x92, 0xa1, 0x74, 0xde, 0, 2, 0xa1, 0x61, 1, 0xa1, 0x61, 2]), false], // key a twice
      [Buffer.from([0x92, 0xa1, 0x74, 0xde, 0, 2, 0xa1, 0x61, 1, 0xa1, 0x31, 2]), false], // "1" after "a"
      [Buffer.from([0x92, 0xa1, 0x74, 0xde, 0, 2, 0xa1, 0x32, 1, 0xa1, 0x31, 2]), false], // "2" before "1"
      [Buffer.from([0x93, 0xa1, 0x74, 0xc0, 0xc0]), true], // nil surfaceOp
      [encodeEventBody(draft(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i])))), false],
      [loose.pack(['test/event', 1, { endSeq: 2, op: 'replace', startSeq: 1 }]), false], // another key order
    ];
    const bodies = cases.map(([body]) => body);
    expect(bodies.map(scans)).toEqual(cases.map(([, spliced]) => spliced));
    for (const body of bodies) await expectSameAsOldPath([entry(0, body)]);
    await expectSameAsOldPath(bodies.map((body, index) => entry(index, body)));
  });

  it('refuses exactly what the old path refuses, when the page is made', () => {
    const bad: Uint8Array[] = [
      Buffer.from([0xc1]),
      Buffer.from([0x91, 0xa1, 0x74]), // one item
      Buffer.from([0x92, 0xa0, 0x01]), // empty type
      Buffer.from([0x92, 0xa1, 0x74, 0xc4, 0x01, 0x00]), // binary
      Buffer.from([0x92, 0xa1, 0x74, 0xcb, 0x7f, 0xf8, 0, 0, 0, 0, 0, 0]), // NaN
      Buffer.from([0x92, 0xa1, 0x74, 0xcb, 0x80, 0, 0, 0, 0, 0, 0, 0]), // -0
      Buffer.from([0x92, 0xa1, 0x74, 0xcb, 0x43, 0x40, 0, 0, 0, 0, 0, 0]), // 2^53 as float64
      Buffer.from([0x92, 0xa1, 0x74, 0xcf, 0, 0x20, 0, 0, 0, 0, 0, 0]), // 2^53 as uint64
      Buffer.from([0x92, 0xa1, 0x74, 0xcf, 0, 0, 0, 0, 0, 0, 0, 7]), // uint64 7 (a BigInt to the decoder)
      Buffer.from([0x92, 0xa1, 0x74, 0xde, 0, 1, 0x01, 0x02]), // integer key
      Buffer.from([0x92, 0xa1, 0x74, 0xd4, 0x01, 0x02]), // extension
      Buffer.from([0x93, 0xa1, 0x74, 0x01, 0xa3, 0x62, 0x61, 0x64]), // surfaceOp 'bad'
      Buffer.from([0x94, 0xa1, 0x74, 0x01, 0xc0, 0x91, 0xff]), // sourceEventSeqs [-1]
      Buffer.from([0x92, 0xa1, 0x74, 0x01, 0x01]), // trailing byte
      Buffer.from([0x92, 0xa1, 0x74, 0xda, 0x00]), // truncated
      Buffer.from([0x92, 0xa1, 0x74, 0xa2, 0xc3, 0x28]), // invalid UTF-8 (msgpackr alone decodes it)
      Buffer.from([0x92, 0xa1, 0x74, 0xa3, 0xed, 0xa0, 0x80]), // a surrogate in UTF-8
      Buffer.from([0x92, 0xa1, 0x74, 0xd9, 0x01, 0xff]), // str8, not canonical and not UTF-8
    ];
    for (const body of bad) {
      expect(() => decodeStreamEntries('s', 0, [entry(0, body)])).toThrow(/session s seq 0/);
      expect(() => encodedStreamPage([entry(0, body)], 0)).toThrow(/session s seq 0/);
    }
    const good = encodeEventBody(draft({ ok: true }));
    const badEntries: RawStreamEntry[][] = [
      [entry(0, good), entry(2, good)], // gap
      [[Buffer.from('0-2'), [Buffer.from('e'), Buffer.from(good), Buffer.from('t'), Buffer.from('1')]]],
      [[Buffer.from('00-1'), [Buffer.from('e'), Buffer.from(good), Buffer.from('t'), Buffer.from('1')]]],
      [[Buffer.from('0-1'), [Buffer.from('e'), Buffer.from(good)]]],
      [[Buffer.from('0-1'), [Buffer.from('e'), Buffer.from(good), Buffer.from('t'), Buffer.from('01')]]],
      [[Buffer.from('0-1'), [Buffer.from('e'), Buffer.from(good), Buffer.from('t'), Buffer.from('9007199254740993')]]],
    ];
    for (const entries of badEntries) {
      const message = /session s seq \d/;
      expect(() => decodeStreamEntries('s', 0, entries)).toThrow(message);
      expect(() => encodedStreamPage(entries, 0)).toThrow(message);
    }
  });
});
