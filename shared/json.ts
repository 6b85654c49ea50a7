/** A value that survives JSON (and msgpack, and Redis) losslessly. See `freezeJson` for the rules. */
export type JsonPrimitive = null | boolean | number | string;
export type JsonValue = JsonPrimitive | readonly JsonValue[] | JsonObject;
export interface JsonObject {
  readonly [key: string]: JsonValue;
}
