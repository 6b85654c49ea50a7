import { describe, expect, it } from 'vitest';
import { jsonEquals, type JsonValue } from '../../shared/index.ts';

describe('jsonEquals', () => {
  it('compares JSON deeply, ignoring object key order but not array order or types', () => {
    expect(jsonEquals({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(jsonEquals([1, 2], [2, 1])).toBe(false);
    expect(jsonEquals({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    const missing = { a: 1, b: undefined } as unknown as JsonValue;
    expect(jsonEquals(missing, { a: 1, c: undefined } as unknown as JsonValue)).toBe(false);
    expect(jsonEquals({ a: '1' }, { a: 1 })).toBe(false);
    expect(jsonEquals(null, {})).toBe(false);
    expect(jsonEquals([], {})).toBe(false);
    expect(jsonEquals(undefined, undefined)).toBe(true);
  });
});
