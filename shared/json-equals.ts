import type { JsonValue } from './json.ts';

/** Deep equality of two JSON values (key order does not matter). */
export function jsonEquals(left: JsonValue | undefined, right: JsonValue | undefined): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  const leftIsArray = Array.isArray(left);
  if (leftIsArray !== Array.isArray(right)) return false;
  if (leftIsArray) {
    const leftArray = left as readonly JsonValue[];
    const rightArray = right as readonly JsonValue[];
    if (leftArray.length !== rightArray.length) return false;
    for (let index = 0; index < leftArray.length; index++) {
      if (!jsonEquals(leftArray[index], rightArray[index])) return false;
    }
    return true;
  }
  const leftObject = left as Readonly<Record<string, JsonValue>>;
  const rightObject = right as Readonly<Record<string, JsonValue>>;
  const keys = Object.keys(leftObject);
  if (keys.length !== Object.keys(rightObject).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(rightObject, key) || !jsonEquals(leftObject[key], rightObject[key])) return false;
  }
  return true;
}
