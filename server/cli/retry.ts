import { backoffDelay, type BackoffOptions } from '../../shared/backoff.ts';
import { HubErrorCode } from '../../shared/protocol.ts';
import { RETRY_LATER_CODES } from '../../shared/retry-codes.ts';
import { CliFailure } from './command.ts';
import { HubRequestError } from './hub-http.ts';

/**
 * Hub answers that mean "not now": the SDK's retry-later codes, and SHUTTING_DOWN (the node is stopping; each of
 * the CLI's requests is a new HTTP request, which reaches the node that takes its place or another one).
 */
const retryCodes: ReadonlySet<string> = new Set<string>([...RETRY_LATER_CODES, HubErrorCode.SHUTTING_DOWN]);

/** The CLI's request retry: pauses drawn below 0.4 s, doubling to 5 s (full jitter, `shared/backoff.ts`). */
const requestBackoff: BackoffOptions = { initialDelayMs: 400, maxDelayMs: 5_000 };
/** Attempts in all: the pauses between them add up to at most 21 s (about 10 s on average). */
const maxAttempts = 8;

/**
 * Run a request to the hub, trying again while the hub cannot serve it yet (STORE_UNAVAILABLE, RATE_LIMITED,
 * SHUTTING_DOWN; with `unreachable`, also when the hub cannot be reached, e.g. it restarts in the middle of an
 * import). Only for requests that are safe to repeat: reads, and appends with an idempotency key. Other failures,
 * and the last one, are thrown.
 */
export async function withRetries<T>(request: () => Promise<T>, options: { unreachable: boolean }): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await request();
    } catch (error) {
      const retry =
        error instanceof HubRequestError
          ? retryCodes.has(error.code)
          : options.unreachable && error instanceof CliFailure;
      if (!retry || attempt >= maxAttempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, backoffDelay(attempt - 1, requestBackoff)));
    }
  }
}
