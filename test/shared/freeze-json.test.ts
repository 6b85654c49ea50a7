import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, SessionLogError, freezeJson } from '../../shared/index.ts';
import { isFrozenJson } from '../../shared/freeze-json.ts';

function rejection(value: unknown, path?: string): SessionLogError {
  try {
    freezeJson(value, path);
  } catch (error) {
    expect(error).toBeInstanceOf(SessionLogError);
    const failure = error as SessionLogError;
    expect(failure.code).toBe('INVALID_JSON');
    expect(failure.message).toContain(failure.path);
    return failure;
  }
  throw new Error('freezeJson accepted the value');
}

describe('freezeJson accepts lossless JSON', () => {
  it('returns an equal deep-frozen copy, never the writer’s objects', () => {
    const input = { a: [1, 'x', null, true, { b: -1.5 }], c: { d: [] }, '': 0 };
    const copy = freezeJson(input) as typeof input;
    expect(copy).toEqual(input);
    expect(copy).not.toBe(input);
    expect(copy.a).not.toBe(input.a);
    expect(Object.isFrozen(copy) && Object.isFrozen(copy.a) && Object.isFrozen(copy.a[4])).toBe(true);
    input.a.push(2);
    expect(copy.a).toHaveLength(5);
  });

  it('passes primitives through', () => {
    for (const value of [null, true, false, 0, 1.5, -7, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, '', 'é😀']) {
      expect(freezeJson(value)).toBe(value);
    }
  });

  it('accepts a container reached twice without a cycle', () => {
    const shared = { x: 1 };
    const copy = freezeJson({ left: shared, right: [shared, shared] }) as Record<string, unknown>;
    expect(copy).toEqual({ left: { x: 1 }, right: [{ x: 1 }, { x: 1 }] });
  });

  it('accepts null-prototype objects and keeps a __proto__ key as data', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare['k'] = 'v';
    expect(freezeJson({ bare })).toEqual({ bare: { k: 'v' } });
    const parsed: unknown = JSON.parse('{"__proto__": {"polluted": true}}');
    const copy = freezeJson(parsed) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('reads a getter exactly once', () => {
    let reads = 0;
    const input = {
      get value() {
        reads++;
        return reads;
      },
    };
    expect(freezeJson(input)).toEqual({ value: 1 });
    expect(reads).toBe(1);
  });

  it('returns its own output as is (already checked and frozen)', () => {
    const frozen = freezeJson({ a: [1] });
    expect(isFrozenJson(frozen)).toBe(true);
    expect(freezeJson(frozen)).toBe(frozen);
    expect(isFrozenJson(Object.freeze({ a: 1 }))).toBe(false);
  });
});

describe('freezeJson rejects what JSON cannot carry, naming the path', () => {
  it('names nested paths like data.message.content[2].input', () => {
    const failure = rejection({ message: { content: ['a', 'b', { input: undefined }] } });
    expect(failure.path).toBe('data.message.content[2].input');
  });

  it('quotes keys that are not identifiers and honours the root name', () => {
    expect(rejection({ 'a b': NaN }, 'payload').path).toBe('payload["a b"]');
  });

  it('rejects cycles', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = { back: cyclic };
    expect(rejection(cyclic).path).toBe('data.self.back');
    const array: unknown[] = [];
    array.push([array]);
    expect(rejection(array).message).toMatch(/cycle/);
  });

  it.each([
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['-Infinity', -Infinity],
    ['-0', -0],
    ['2^53', 2 ** 53],
    ['-(2^53)', -(2 ** 53)],
    ['1e300', 1e300],
    ['bigint', 10n],
    ['undefined', undefined],
    ['function', () => 1],
    ['symbol', Symbol('s')],
  ])('rejects %s as a value', (_name, value) => {
    expect(rejection({ v: value }).path).toBe('data.v');
    expect(rejection([value]).path).toBe('data[0]');
  });

  it('rejects symbol keys', () => {
    expect(rejection({ [Symbol('k')]: 1 }).message).toMatch(/symbol key/);
  });

  it('rejects non-enumerable own properties', () => {
    const object = { a: 1 };
    Object.defineProperty(object, 'hidden', { value: 2, enumerable: false });
    expect(rejection({ object }).path).toBe('data.object.hidden');
  });

  it('rejects a non-enumerable array index, also when an enumerable extra property balances the key count', () => {
    const hidden = [1, 2];
    Object.defineProperty(hidden, 0, { enumerable: false });
    expect(rejection(hidden).path).toBe('data[0]');
    const balanced = Object.assign([1, 2], { x: 1 });
    Object.defineProperty(balanced, 1, { enumerable: false });
    expect(rejection(balanced).message).toMatch(/extra property x/);
  });

  it('rejects sparse arrays', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(rejection([1, , 3]).path).toBe('data[1]');
    expect(rejection(new Array(2)).message).toMatch(/sparse/);
  });

  it('rejects arrays with extra properties, enumerable or not', () => {
    const extra = Object.assign([1, 2], { note: 'x' });
    expect(rejection(extra).message).toMatch(/extra property note/);
    const hidden = [1];
    Object.defineProperty(hidden, 'h', { value: 1, enumerable: false });
    expect(rejection(hidden).message).toMatch(/extra property h/);
    // A hole and an extra property must not cancel out.
    // eslint-disable-next-line no-sparse-arrays
    expect(rejection(Object.assign([, 1], { x: 1 })).path).toBe('data[0]');
  });

  class Point {
    x = 1;
  }
  it.each([
    ['Map', new Map()],
    ['Set', new Set()],
    ['Date', new Date(0)],
    ['class instance', new Point()],
    ['Buffer', Buffer.from('x')],
    ['Uint8Array', new Uint8Array(2)],
    ['RegExp', /x/],
    ['boxed string', new String('x')],
  ])('rejects a %s', (_name, value) => {
    expect(rejection({ v: value }).message).toMatch(/not a plain object/);
  });

  it('rejects array subclasses', () => {
    class List extends Array<number> {}
    expect(rejection(List.from([1])).message).toMatch(/not a plain array/);
  });

  it('rejects lone surrogates in values and keys, accepts pairs', () => {
    expect(rejection({ s: 'a\uD800b' }).path).toBe('data.s');
    expect(rejection({ s: '\uDC00' }).path).toBe('data.s');
    expect(rejection({ ['k\uD83D']: 1 }).message).toMatch(/key is not well-formed/);
    expect(freezeJson('\uD83D\uDE00')).toBe('😀');
  });
});

describe('freezeJson on heavily shared values', () => {
  it('copies a DAG that shares containers at every level in linear time', () => {
    let value: unknown = { leaf: true };
    for (let depth = 0; depth < 40; depth++) value = [value, value];
    const copy = freezeJson(value);
    let node = copy as unknown;
    for (let depth = 0; depth < 40; depth++) node = (node as unknown[])[1];
    expect(node).toEqual({ leaf: true });
  });

  it('still finds a cycle deep inside a memoized walk', () => {
    const root: unknown[] = [];
    let node = root;
    for (let depth = 0; depth < 600; depth++) {
      const child: unknown[] = [{ filler: depth }];
      node.push(child);
      node = child;
    }
    node.push(root);
    expect(rejection(root).message).toMatch(/cycle/);
  });
});

describe('freezeJson nesting depth', () => {
  function nested(depth: number): unknown {
    let value: unknown = 'bottom';
    for (let level = 0; level < depth; level++) value = { next: value };
    return value;
  }

  it('accepts values nested MAX_JSON_DEPTH deep and rejects deeper ones without overflowing the stack', () => {
    expect(() => freezeJson(nested(MAX_JSON_DEPTH))).not.toThrow();
    expect(rejection(nested(MAX_JSON_DEPTH + 1)).message).toMatch(/nested deeper than/);
    expect(rejection(nested(100_000)).code).toBe('INVALID_JSON');
  });
});
