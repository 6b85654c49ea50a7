import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionLogError, freezeJson } from '../../shared/index.ts';

/** What `freezeJson` threw (the test fails when it accepted the value). */
function thrown(value: unknown): unknown {
  try {
    freezeJson(value);
  } catch (error) {
    return error;
  }
  throw new Error('freezeJson accepted the value');
}

/** How a class hides its name: an accessor `constructor` on its prototype, an accessor `name`, or neither. */
type Disguise = 'constructor getter' | 'name getter' | 'none';

/** An instance of a class called `name`, disguised as told; `calls` counts every accessor call (each throws). */
function disguisedInstance(name: string, disguise: Disguise, calls: { count: number }): object {
  const Class = function () {} as unknown as { prototype: object };
  Object.defineProperty(Class, 'name', { value: name });
  const trap = (): never => {
    calls.count++;
    throw new Error('the value’s own code ran');
  };
  if (disguise === 'constructor getter') Object.defineProperty(Class.prototype, 'constructor', { get: trap });
  if (disguise === 'name getter') Object.defineProperty(Class, 'name', { get: trap });
  return Object.create(Class.prototype) as object;
}

// Issue 26, item 12: the rejection named a non-plain object by reading `proto.constructor.name`, which ran a getter
// there (and threw the getter's own error instead of INVALID_JSON). docs/session-log.md promises never to run a
// value's code.
describe('freezeJson names a refused object without running its code', () => {
  it('a constructor or name getter is never called; the rejection is INVALID_JSON with the path', () => {
    for (const disguise of ['constructor getter', 'name getter'] as const) {
      const calls = { count: 0 };
      const error = thrown({ v: disguisedInstance('Secret', disguise, calls) });
      expect(error, disguise).toBeInstanceOf(SessionLogError);
      expect(error, disguise).toMatchObject({ code: 'INVALID_JSON', path: 'data.v' });
      expect((error as Error).message, disguise).toBe('data.v: a non-plain object is not a plain object');
      expect(calls.count, disguise).toBe(0);
    }
  });

  it('the same for an array whose prototype is disguised', () => {
    const calls = { count: 0 };
    const prototype = Object.create(Array.prototype, {
      constructor: { get: () => ++calls.count },
    }) as unknown[];
    const array = Object.setPrototypeOf([1], prototype) as unknown[];
    expect(thrown([array])).toMatchObject({ code: 'INVALID_JSON', path: 'data[0]' });
    expect(calls.count).toBe(0);
  });

  it('still names classes that do not hide: built-ins, classes and their subclasses', () => {
    class Point {
      x = 1;
    }
    class Point3 extends Point {}
    expect((thrown({ v: new Map() }) as Error).message).toBe('data.v: a Map is not a plain object');
    expect((thrown({ v: new Point3() }) as Error).message).toBe('data.v: a Point3 is not a plain object');
    expect((thrown({ v: Object.create(new Point()) as object }) as Error).message).toMatch(/a Point is not/);
    const long = disguisedInstance('N'.repeat(500), 'none', { count: 0 });
    expect((thrown(long) as Error).message.length).toBeLessThan(200);
  });

  it('for any class name and disguise: INVALID_JSON, no accessor called, named only by a data property', () => {
    const disguises = fc.constantFrom<Disguise>('constructor getter', 'name getter', 'none');
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), disguises, (name, disguise) => {
        const calls = { count: 0 };
        const error = thrown({ v: disguisedInstance(name, disguise, calls) });
        expect(error).toBeInstanceOf(SessionLogError);
        expect((error as SessionLogError).code).toBe('INVALID_JSON');
        expect(calls.count).toBe(0);
        const named = disguise === 'none' && name !== '';
        expect((error as Error).message).toBe(`data.v: a ${named ? name : 'non-plain object'} is not a plain object`);
      }),
      { numRuns: 200 },
    );
  });
});
