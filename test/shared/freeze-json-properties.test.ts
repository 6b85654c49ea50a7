import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { freezeJson, jsonEquals } from '../../shared/index.ts';
import { losslessJson } from './support/log-arbitrary.ts';

function deeplyFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(deeplyFrozen);
}

describe('freezeJson properties', () => {
  it('accepts every lossless JSON value, returns an equal deep-frozen copy that survives JSON text', () => {
    fc.assert(
      fc.property(losslessJson, (value) => {
        const frozen = freezeJson(value);
        expect(frozen).toEqual(value);
        expect(deeplyFrozen(frozen)).toBe(true);
        expect(jsonEquals(JSON.parse(JSON.stringify(frozen)) as never, frozen)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('rejects an array with any element made non-enumerable, naming that index', () => {
    fc.assert(
      fc.property(fc.array(losslessJson, { minLength: 1, maxLength: 6 }), fc.nat(), (items, pick) => {
        const index = pick % items.length;
        const array = [...items];
        Object.defineProperty(array, index, { enumerable: false });
        expect(() => freezeJson({ list: array })).toThrow(`data.list[${index}]: non-enumerable own property`);
      }),
      { numRuns: 200 },
    );
  });
});
