import { SessionLogError } from './errors.ts';
import type { JsonObject, JsonValue } from './json.ts';

/** Roots returned by `freezeJson`: deep-frozen and already checked, so they are returned as they are. */
const frozenRoots = new WeakSet<object>();

/** Marks a container whose copy is still being built: reaching it again means a cycle. */
const IN_PROGRESS: unique symbol = Symbol('in-progress');

type PathKey = string | number;

const hasWellFormed = typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function';
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function isWellFormedString(value: string): boolean {
  return hasWellFormed ? (value as string & { isWellFormed(): boolean }).isWellFormed() : !loneSurrogate.test(value);
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `data.message.content[2].input`; keys that are not identifiers are quoted: `data["a b"]`. */
export function formatJsonPath(root: string, keys: readonly PathKey[]): string {
  let path = root;
  for (const key of keys) {
    if (typeof key === 'number') path += `[${key}]`;
    else if (identifier.test(key)) path += `.${key}`;
    else path += `[${JSON.stringify(key)}]`;
  }
  return path;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'bigint') return `bigint ${value}n`;
  if (typeof value === 'symbol') return 'a symbol';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object') {
    const proto: unknown = Object.getPrototypeOf(value);
    const name = (proto as { constructor?: { name?: unknown } } | null)?.constructor?.name;
    return typeof name === 'string' && name !== '' ? `a ${name}` : 'a non-plain object';
  }
  return String(value);
}

/**
 * One walk of `freezeJson`. `copies` maps each container met to its frozen copy (or IN_PROGRESS while its
 * children are walked): a container met twice is shared, met while in progress is a cycle. `keys` is the
 * path stack, turned into a string only when something is rejected.
 */
class Freezer {
  readonly #root: string;
  readonly #keys: PathKey[] = [];
  readonly #copies = new Map<object, JsonValue | typeof IN_PROGRESS>();

  constructor(root: string) {
    this.#root = root;
  }

  fail(reason: string, extraKey?: PathKey): never {
    const keys = extraKey === undefined ? this.#keys : [...this.#keys, extraKey];
    const path = formatJsonPath(this.#root, keys);
    throw new SessionLogError('INVALID_JSON', `${path}: ${reason}`, { path });
  }

  value(value: unknown): JsonValue {
    switch (typeof value) {
      case 'string':
        if (!isWellFormedString(value)) this.fail('string is not well-formed Unicode (lone surrogate)');
        return value;
      case 'number':
        if (!Number.isFinite(value)) this.fail(`${describe(value)} is not a finite number`);
        if (value === 0 && 1 / value < 0) this.fail('-0 is not JSON (it reads back as 0)');
        if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
          this.fail(`integer ${value} is outside ±(2^53−1)`);
        }
        return value;
      case 'boolean':
        return value;
      case 'object':
        return value === null ? null : this.#container(value);
      case 'undefined':
        return this.fail('undefined is not JSON');
      default:
        return this.fail(`${describe(value)} is not JSON`);
    }
  }

  #container(value: object): JsonValue {
    const seen = this.#copies.get(value);
    if (seen !== undefined) {
      if (seen === IN_PROGRESS) this.fail('cycle: the container contains itself');
      return seen;
    }
    if (frozenRoots.has(value)) return value as JsonValue;
    this.#copies.set(value, IN_PROGRESS);
    const copy = Array.isArray(value) ? this.#array(value) : this.#object(value);
    this.#copies.set(value, copy);
    return copy;
  }

  #array(array: readonly unknown[]): JsonValue {
    if (Object.getPrototypeOf(array) !== Array.prototype) this.fail(`${describe(array)} is not a plain array`);
    const length = array.length;
    const copy = new Array<JsonValue>(length);
    const keys = this.#keys;
    for (let index = 0; index < length; index++) {
      const item = array[index];
      if (item === undefined && !(index in array)) this.fail('sparse array (hole)', index);
      keys.push(index);
      copy[index] = this.value(item);
      keys.pop();
    }
    // Own names are the indices plus `length`: anything more is an extra (or non-enumerable) property.
    const names = Object.getOwnPropertyNames(array);
    if (names.length !== length + 1 || Object.getOwnPropertySymbols(array).length > 0) {
      const extra = Reflect.ownKeys(array).find((key) => key !== 'length' && !isIndex(key, length));
      this.fail(`array has an extra property ${String(extra)}`);
    }
    return Object.freeze(copy);
  }

  #object(object: object): JsonValue {
    const proto: unknown = Object.getPrototypeOf(object);
    if (proto !== Object.prototype && proto !== null) this.fail(`${describe(object)} is not a plain object`);
    const keys = Object.keys(object);
    const ownKeys = Reflect.ownKeys(object);
    if (ownKeys.length !== keys.length) this.#failHiddenKey(object, ownKeys);
    const copy: Record<string, JsonValue> = {};
    const path = this.#keys;
    const source = object as Record<string, unknown>;
    for (const key of keys) {
      if (!isWellFormedString(key)) this.fail('key is not well-formed Unicode (lone surrogate)', key);
      path.push(key);
      const item = this.value(source[key]); // getters are read exactly once, here
      path.pop();
      if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true });
      else copy[key] = item;
    }
    return Object.freeze(copy) as JsonObject;
  }

  #failHiddenKey(object: object, ownKeys: readonly (string | symbol)[]): never {
    for (const key of ownKeys) {
      if (typeof key === 'symbol') this.fail(`symbol key ${String(key)} is not JSON`);
      if (!Object.prototype.propertyIsEnumerable.call(object, key)) {
        this.fail('non-enumerable own property is not JSON', key);
      }
    }
    return this.fail('object has keys that are not JSON');
  }
}

function isIndex(key: string | symbol, length: number): boolean {
  if (typeof key !== 'string') return false;
  const index = Number(key);
  return Number.isInteger(index) && index >= 0 && index < length && String(index) === key;
}

/**
 * Checks that `value` is lossless JSON and returns a deep-frozen copy of it (the writer's objects are never
 * aliased). Accepts only `null`, booleans, well-formed strings, finite numbers (no `-0`, integers within
 * ±(2^53−1)), plain dense arrays and plain objects (`Object.prototype` or `null` prototype) with enumerable
 * string keys. A container may be reached twice (shared), never inside itself (cycle). Getters are read once.
 *
 * @param path the name of the root in error paths, e.g. `data` gives `data.message.content[2].input`.
 * @throws SessionLogError `INVALID_JSON` with `path` naming the first offending value.
 */
export function freezeJson(value: unknown, path = 'data'): JsonValue {
  if (typeof value !== 'object' || value === null) return new Freezer(path).value(value);
  if (frozenRoots.has(value)) return value as JsonValue;
  const copy = new Freezer(path).value(value);
  frozenRoots.add(copy as object);
  return copy;
}

/** True when `value` came out of `freezeJson` (deep-frozen, checked lossless JSON). */
export function isFrozenJson(value: unknown): boolean {
  return typeof value !== 'object' || value === null ? false : frozenRoots.has(value);
}
