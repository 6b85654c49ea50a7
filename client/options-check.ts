import { HubClientError } from './errors.ts';
import type { BackoffOptions } from '../shared/backoff.ts';

/** Longest delay `setTimeout` honours (ms); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

function refuse(name: string, rule: string, value: unknown): never {
  throw new HubClientError('BAD_REQUEST', `${name} must be ${rule}, got ${String(value)}`);
}

/**
 * A timeout option (ms) as the SDK uses it: Infinity (no timeout) as is, a finite one at most `MAX_TIMER_MS` (a
 * longer one would fire at once). Throws BAD_REQUEST for anything but a non-negative number.
 */
export function checkTimeoutMs(name: string, value: number): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    refuse(name, 'a non-negative number of ms or Infinity', value);
  }
  return value === Number.POSITIVE_INFINITY ? value : Math.min(value, MAX_TIMER_MS);
}

/** An interval or delay option (ms): a positive finite number, capped at `MAX_TIMER_MS`. Throws BAD_REQUEST. */
export function checkIntervalMs(name: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    refuse(name, 'a positive finite number of ms', value);
  }
  return Math.min(value, MAX_TIMER_MS);
}

/** A size or count option: a positive safe integer. Throws BAD_REQUEST. */
export function checkPositiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) refuse(name, 'a positive integer', value);
  return value;
}

/** Reconnect/retry backoff options: positive delays (`maxDelayMs` ≥ `initialDelayMs`), a factor ≥ 1. */
export function checkBackoff(options: BackoffOptions | undefined): BackoffOptions | undefined {
  if (options === undefined) return undefined;
  const { initialDelayMs, maxDelayMs, factor } = options;
  const checked: { -readonly [K in keyof BackoffOptions]: BackoffOptions[K] } = {};
  if (initialDelayMs !== undefined)
    checked.initialDelayMs = checkIntervalMs('reconnect.initialDelayMs', initialDelayMs);
  if (maxDelayMs !== undefined) checked.maxDelayMs = checkIntervalMs('reconnect.maxDelayMs', maxDelayMs);
  if (checked.initialDelayMs !== undefined && checked.maxDelayMs !== undefined) {
    if (checked.maxDelayMs < checked.initialDelayMs) {
      refuse('reconnect.maxDelayMs', `at least reconnect.initialDelayMs (${checked.initialDelayMs})`, maxDelayMs);
    }
  }
  if (factor !== undefined) {
    if (typeof factor !== 'number' || !Number.isFinite(factor) || factor < 1) {
      refuse('reconnect.factor', 'a finite number ≥ 1', factor);
    }
    checked.factor = factor;
  }
  return checked;
}
