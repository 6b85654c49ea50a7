import type { JsonObject, JsonValue } from './json.ts';

/** True for a JSON object (not null, not an array). */
export function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
