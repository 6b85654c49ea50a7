/**
 * `promise`, or a rejection with `timedOut()` when it has not settled after `ms` (Infinity: never). The timer is
 * cleared either way; a late rejection of `promise` is still handled (never reported as unhandled).
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, timedOut: () => Error): Promise<T> {
  if (ms === Number.POSITIVE_INFINITY) return promise;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut()), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
