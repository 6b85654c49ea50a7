/**
 * Settle like `promise`, or reject with `onTimeout()`'s error once `ms` passed first (`Infinity`: never). The timer
 * never outlives the race, and a late rejection of `promise` stays handled. (`promise` keeps running after a
 * timeout: callers that care must stop it themselves.) Isomorphic: the hub and the SDK (browser too) share it.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  if (ms === Number.POSITIVE_INFINITY) return promise;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
