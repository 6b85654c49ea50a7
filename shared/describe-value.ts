/** Longest string quoted in full by `describeValue`; longer ones are cut and marked with `…`. */
const MAX_QUOTED = 80;

/**
 * A short text for an untrusted value in an error message. Never throws and never runs the value's code
 * (`JSON.stringify` throws on `bigint` and cycles and calls `toJSON`; a template literal throws on a symbol).
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value.length > MAX_QUOTED ? `${JSON.stringify(value.slice(0, MAX_QUOTED))}…` : JSON.stringify(value);
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value);
    case 'bigint':
      return `${value.toString()}n`;
    case 'boolean':
    case 'undefined':
      return String(value);
    case 'symbol':
      return 'a symbol';
    case 'function':
      return 'a function';
    default:
      if (value === null) return 'null';
      return Array.isArray(value) ? 'an array' : 'an object';
  }
}

/** Prototypes walked by `describeObjectType` looking for an own `constructor` (a longer chain is not named). */
const MAX_PROTOTYPE_STEPS = 32;

/**
 * `a Map`, `a Point`: an object named by its class, for an error message. Reads only property descriptors (never
 * a getter: a `constructor` or `name` accessor is not called), and a proxy trap that throws only makes it
 * `a non-plain object`. Never throws.
 */
export function describeObjectType(value: object): string {
  try {
    let proto: unknown = Object.getPrototypeOf(value);
    for (let step = 0; step < MAX_PROTOTYPE_STEPS && typeof proto === 'object' && proto !== null; step++) {
      const constructor = Object.getOwnPropertyDescriptor(proto, 'constructor');
      if (constructor !== undefined) return `a ${constructorName(constructor) ?? 'non-plain object'}`;
      proto = Object.getPrototypeOf(proto);
    }
  } catch {
    // A proxy's trap threw: the object stays unnamed.
  }
  return 'a non-plain object';
}

/** The `name` of a class held by a data property (an accessor is never called); undefined when it has none. */
function constructorName(descriptor: PropertyDescriptor): string | undefined {
  const constructor: unknown = descriptor.value;
  if (typeof constructor !== 'function') return undefined;
  const name: unknown = Object.getOwnPropertyDescriptor(constructor, 'name')?.value;
  if (typeof name !== 'string' || name === '') return undefined;
  return name.length > MAX_QUOTED ? `${name.slice(0, MAX_QUOTED)}…` : name;
}
