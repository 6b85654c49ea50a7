import { SessionLogError } from './errors.ts';

/** Throws `INVALID_EVENT` ("`path`: `reason`", with `path` set when given). */
export function invalidEvent(reason: string, path?: string): never {
  throw new SessionLogError('INVALID_EVENT', path === undefined ? reason : `${path}: ${reason}`, {
    ...(path === undefined ? {} : { path }),
  });
}

/** Throws `SURFACE_VIOLATION` ("`path`: `reason`", with `path` set when given). */
export function surfaceViolation(reason: string, path?: string): never {
  throw new SessionLogError('SURFACE_VIOLATION', path === undefined ? reason : `${path}: ${reason}`, {
    ...(path === undefined ? {} : { path }),
  });
}

/** A non-negative safe integer (seqs and epoch-millisecond times). */
export function isNonNegativeSafeInteger(value: unknown): value is number {
  // -0 is refused as in data (it is not JSON: it reads back as 0).
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && !Object.is(value, -0);
}

// In unicode mode a surrogate pair is one code point, so this matches lone surrogates only.
const LONE_SURROGATE = /\p{Surrogate}/u;

/** True when `text` holds a lone surrogate: it cannot survive UTF-8 (it turns into U+FFFD). */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}
