/**
 * Settle like `promise`, or reject with `onTimeout()`'s error once `ms` passed first. The timer never outlives the
 * race. (`promise` keeps running after a timeout: callers that care must stop it themselves.)
 */
export async function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
