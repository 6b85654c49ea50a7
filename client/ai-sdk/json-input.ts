import type { JsonObject, JsonValue } from '../../shared/json.ts';
import { isObject } from '../../shared/is-object.ts';

/** `value` when it is a JSON object, else undefined. */
export function record(value: JsonValue | undefined): JsonObject | undefined {
  return isObject(value) ? value : undefined;
}

/** A tool call's arguments as the AI SDK wants its input: parsed JSON, or the text itself when it is not JSON. */
export function parseInput(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}
