/** Mark `promise` as handled (its rejection is reported elsewhere) and return it: callers still see it reject. */
export function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** A rejection with `error` that is never reported as unhandled (a writer's failure, surfaced by every call). */
export function rejectedHandled(error: unknown): Promise<never> {
  return handled(Promise.reject(error));
}
