import { describeObjectType, describeValue } from './describe-value.ts';
import { SessionLogError } from './errors.ts';
import type { JsonObject, JsonValue } from './json.ts';

/** Roots returned by `freezeJson`: deep-frozen and already checked, so they are returned as they are. */
const frozenRoots = new WeakSet<object>();

type PathKey = string | number;

const hasWellFormed = typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function';
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when `value` is well-formed Unicode (no lone surrogate), so it survives UTF-8 unchanged. */
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

/** The value named in a rejection; an object by its class, without running its code (`describeObjectType`). */
function describe(value: unknown): string {
  if (typeof value === 'bigint') return `bigint ${describeValue(value)}`;
  return typeof value === 'object' && value !== null ? describeObjectType(value) : describeValue(value);
}

/** Deepest nesting accepted (deeper values are rejected instead of overflowing the stack). */
export const MAX_JSON_DEPTH = 1000;

/** Containers walked before shared ones start being memoized (bounds the cost of a DAG that shares a lot). */
const MEMO_AFTER = 256;

/**
 * One walk of `freezeJson`. Cycles are found on the stack of containers being walked (`ancestors`); a container
 * reached twice without a cycle is fine, and is copied again, until the walk has met `MEMO_AFTER` containers:
 * from then on copies are memoized, so a value sharing many containers is still copied in linear time.
 * `keys` is the path stack, turned into a string only when something is rejected.
 */
class Freezer {
  readonly #root: string;
  /** Freeze the checked containers themselves instead of copies (only for values nobody else holds). */
  readonly #inPlace: boolean;
  readonly #keys: PathKey[] = [];
  readonly #ancestors: object[] = [];
  #walked = 0;
  #copies: Map<object, JsonValue> | undefined;

  constructor(root: string, inPlace = false) {
    this.#root = root;
    this.#inPlace = inPlace;
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
    if (frozenRoots.has(value)) return value as JsonValue;
    const ancestors = this.#ancestors;
    if (ancestors.includes(value)) this.fail('cycle: the container contains itself');
    const memo = this.#copies;
    const known = memo?.get(value);
    if (known !== undefined) return known;
    if (ancestors.length >= MAX_JSON_DEPTH) this.fail(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    ancestors.push(value);
    const copy = Array.isArray(value) ? this.#array(value) : this.#object(value);
    ancestors.pop();
    if (memo !== undefined) memo.set(value, copy);
    else if (++this.#walked === MEMO_AFTER) this.#copies = new Map();
    return copy;
  }

  #array(array: readonly unknown[]): JsonValue {
    if (Object.getPrototypeOf(array) !== Array.prototype) this.fail(`${describe(array)} is not a plain array`);
    const length = array.length;
    const copy = this.#inPlace ? undefined : new Array<JsonValue>(length);
    const keys = this.#keys;
    for (let index = 0; index < length; index++) {
      const item = array[index];
      if (item === undefined && !(index in array)) this.fail('sparse array (hole)', index);
      keys.push(index);
      const checked = this.value(item);
      if (copy !== undefined) copy[index] = checked;
      keys.pop();
    }
    // Own names are the indices plus `length`: anything more is an extra (or non-enumerable) property.
    const names = Object.getOwnPropertyNames(array);
    if (names.length !== length + 1 || Object.getOwnPropertySymbols(array).length > 0) {
      const extra = Reflect.ownKeys(array).find((key) => key !== 'length' && !isIndex(key, length));
      this.fail(`array has an extra property ${String(extra)}`);
    }
    // Only indices and `length` remain: every index must also be enumerable (the reference rejects non-enumerable
    // own properties, and `JSON.stringify` keeps such an element while `Object.keys`-based copies drop it).
    if (Object.keys(array).length !== length) {
      const hidden = names.find((name) => name !== 'length' && !propertyIsEnumerable.call(array, name));
      this.fail('non-enumerable own property is not JSON', Number(hidden));
    }
    return Object.freeze(copy ?? (array as JsonValue[]));
  }

  #object(object: object): JsonValue {
    const proto: unknown = Object.getPrototypeOf(object);
    if (proto !== Object.prototype && proto !== null) this.fail(`${describe(object)} is not a plain object`);
    const keys = Reflect.ownKeys(object);
    const copy: Record<string, JsonValue> | undefined = this.#inPlace ? undefined : {};
    const path = this.#keys;
    const source = object as Record<string, unknown>;
    for (const key of keys) {
      if (typeof key === 'symbol') this.fail(`symbol key ${String(key)} is not JSON`);
      if (!propertyIsEnumerable.call(object, key)) this.fail('non-enumerable own property is not JSON', key);
      if (!isWellFormedString(key)) this.fail('key is not well-formed Unicode (lone surrogate)', key);
      path.push(key);
      const item = this.value(source[key]); // getters are read exactly once, here
      path.pop();
      if (copy === undefined) continue;
      if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true });
      else copy[key] = item;
    }
    return Object.freeze(copy ?? object) as JsonObject;
  }
}

const propertyIsEnumerable = Object.prototype.propertyIsEnumerable;

function isIndex(key: string | symbol, length: number): boolean {
  if (typeof key !== 'string') return false;
  const index = Number(key);
  return Number.isInteger(index) && index >= 0 && index < length && String(index) === key;
}

/**
 * Checks that `value` is lossless JSON and returns a deep-frozen copy of it (the writer's objects are never
 * aliased). Accepts only `null`, booleans, well-formed strings, finite numbers (no `-0`, integers within
 * ±(2^53−1)), plain dense arrays and plain objects (`Object.prototype` or `null` prototype) with enumerable
 * string keys, nested at most `MAX_JSON_DEPTH` deep. A container may be reached twice (shared), never inside
 * itself (cycle). Getters are read once.
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

/**
 * `freezeJson` for a value the caller itself just decoded (msgpack, `JSON.parse`) and holds the only reference to:
 * the same checks, but the containers are frozen in place instead of copied, and `freezeJson` returns the value as
 * it is from then on. Never for a value a caller handed in (it could keep a reference, or carry getters). Returns
 * false when the value is not lossless JSON: it is then left to `freezeJson` to report where (some of its
 * containers may already be frozen).
 */
export function adoptDecodedJson(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || frozenRoots.has(value)) return true;
  try {
    new Freezer('data', true).value(value);
  } catch {
    return false;
  }
  frozenRoots.add(value);
  return true;
}

/** True when `value` came out of `freezeJson` (deep-frozen, checked lossless JSON). */
export function isFrozenJson(value: unknown): boolean {
  return typeof value !== 'object' || value === null ? false : frozenRoots.has(value);
}
