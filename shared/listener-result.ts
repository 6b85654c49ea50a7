/**
 * What a listener returned, when it is a promise (or another thenable); else undefined. A listener typed as
 * returning `void` may still be `async`: its promise, if nobody took it, would reject unhandled (and end a Node
 * process), so every place that calls listeners routes that rejection where a throw goes (`onListenerError`).
 * Reading `then` may throw (a getter, a proxy): call this where a throw of the listener itself is caught.
 */
export function returnedPromise(returned: unknown): PromiseLike<unknown> | undefined {
  if (typeof returned !== 'object' || returned === null) return undefined;
  return typeof (returned as { then?: unknown }).then === 'function' ? (returned as PromiseLike<unknown>) : undefined;
}
