/**
 * The one retry timing of the hub and the SDK: exponential backoff with full jitter. Every user names its own
 * policy (a `BackoffOptions` constant next to the code that retries); the defaults below are the SDK's reconnect.
 */
export interface BackoffOptions {
  /** Upper bound of the first delay (ms). Default 250. */
  readonly initialDelayMs?: number;
  /** Cap of the delay bound (ms). Default 10,000. */
  readonly maxDelayMs?: number;
  /** Growth of the bound per failed attempt. Default 2. */
  readonly factor?: number;
}

export const DEFAULT_BACKOFF: Required<BackoffOptions> = { initialDelayMs: 250, maxDelayMs: 10_000, factor: 2 };

/**
 * Delay before retry `attempt` (0 for the first): a uniform random value in
 * [0, min(maxDelayMs, initialDelayMs · factor^attempt)] ("full jitter", so many clients or nodes that failed at
 * once do not come back in lockstep). Options not given take `DEFAULT_BACKOFF`. `random` returns [0, 1).
 */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const { initialDelayMs, maxDelayMs, factor } = { ...DEFAULT_BACKOFF, ...options };
  const bound = Math.min(maxDelayMs, initialDelayMs * Math.pow(factor, Math.max(0, attempt)));
  return Math.floor(random() * (Number.isFinite(bound) ? bound : maxDelayMs));
}
