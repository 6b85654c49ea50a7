import { CliFailure } from './command.ts';
import { HubRequestError } from './hub-http.ts';

/** Hub answers that mean "not now": the same request may succeed a little later. */
const retryCodes: ReadonlySet<string> = new Set(['STORE_UNAVAILABLE', 'RATE_LIMITED', 'SHUTTING_DOWN']);
/** Attempts in all, with exponential pauses between them (0.2 s to 5 s, about 12 s in all). */
const maxAttempts = 6;

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
      await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 100 * 2 ** attempt)));
    }
  }
}
