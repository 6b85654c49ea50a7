// Provider output made lossless JSON before it is written: a stream's text may hold lone surrogates (a pair split
// by the provider), and parsed tool arguments may hold -0 or integers beyond 2^53. The log refuses such values
// (INVALID_JSON), which would drop the assistant message while its tool calls went in: so they are fixed here.
import { freezeJson } from '../../shared/freeze-json.ts';
import type { JsonValue } from '../../shared/json.ts';

// In unicode mode a surrogate pair is one code point, so this matches lone surrogates only.
const LONE_SURROGATE = /\p{Surrogate}/gu;

/** `text` with each lone surrogate replaced by U+FFFD (what a UTF-8 round trip would make of it). */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

function sanitize(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return wellFormed(value);
  if (Object.is(value, -0)) return 0;
  return value;
}

/** JSON text → a lossless JSON value (strings well-formed, -0 as 0), or undefined when that cannot be had. */
export function losslessParse(text: string): JsonValue | undefined {
  try {
    return freezeJson(JSON.parse(text, sanitize));
  } catch {
    return undefined; // not JSON, or a number JSON cannot hold losslessly (e.g. an integer beyond 2^53)
  }
}

/** A copy of a provider's JSON report as lossless JSON, or undefined when that cannot be had. */
export function losslessCopy(value: unknown): JsonValue | undefined {
  return losslessParse(JSON.stringify(value ?? null));
}
