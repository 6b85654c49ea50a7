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
