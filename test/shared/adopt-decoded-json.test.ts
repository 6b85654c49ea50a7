import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeMsgpackValue } from '../../shared/codec.ts';
import { adoptDecodedJson } from '../../shared/freeze-json.ts';
import { freezeJson } from '../../shared/index.ts';
import { losslessJson } from './support/log-arbitrary.ts';

function deeplyFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(deeplyFrozen);
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('adoptDecodedJson (freeze in place what the hub itself decoded)', () => {
  it('freezes a decoded value in place, after which freezeJson returns that very value', () => {
    fc.assert(
      fc.property(losslessJson, fc.boolean(), (value, viaMsgpack) => {
        const decoded = viaMsgpack ? decodeFrame(encodeMsgpackValue(value)) : JSON.parse(JSON.stringify(value));
        expect(adoptDecodedJson(decoded)).toBe(true);
        expect(deeplyFrozen(decoded)).toBe(true);
        expect(freezeJson(decoded)).toBe(decoded);
        expect(decoded).toEqual(value);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses what freezeJson refuses, which then reports the same fault', () => {
    const decodedFaults: unknown[] = [
      decodeFrame(encodeMsgpackValue({ a: [1, undefined] })), // msgpackr decodes undefined
      decodeFrame(encodeMsgpackValue({ bytes: new Uint8Array([1, 2]) })),
      decodeFrame(encodeMsgpackValue({ n: Number.NaN })),
      decodeFrame(encodeMsgpackValue({ big: 2 ** 60 })),
      JSON.parse('{"deep":'.repeat(1001) + '1' + '}'.repeat(1001)),
      { text: 'lone \uD800 surrogate' },
    ];
    for (const value of decodedFaults) {
      const expected = thrown(() => freezeJson(structuredClone(value))) as { code?: unknown; path?: unknown };
      expect(expected).toBeInstanceOf(Error);
      expect(adoptDecodedJson(value)).toBe(false);
      expect(thrown(() => freezeJson(value))).toMatchObject({ code: expected.code, path: expected.path });
    }
  });
});
