import { returnedPromise } from '../shared/listener-result.ts';

/** A listener map: event name → the listener's argument tuple. */
export type EventMap = { [name: string]: readonly unknown[] };

/** A listener; it may be `async` (`void` takes a promise too): its promise is not awaited, its rejection is reported. */
export type Listener<Args extends readonly unknown[]> = (...args: Args) => void;

/**
 * A tiny typed, isomorphic event emitter (no node:events). Listeners run synchronously in registration order.
 * A throwing listener does not stop the others: its error goes to `onListenerError`, and so does the rejection of
 * a promise a listener returns (never an unhandled rejection).
 */
export class Emitter<Events extends EventMap> {
  readonly #listeners = new Map<keyof Events, Set<Listener<never>>>();
  readonly #onListenerError: (error: unknown) => void;

  constructor(onListenerError: (error: unknown) => void = reportListenerError) {
    this.#onListenerError = onListenerError;
  }

  /** Add a listener; returns a function that removes it (idempotent). */
  on<K extends keyof Events>(name: K, listener: Listener<Events[K]>): () => void {
    let set = this.#listeners.get(name);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(name, set);
    }
    set.add(listener as Listener<never>);
    return () => this.off(name, listener);
  }

  /** Add a listener that runs at most once. */
  once<K extends keyof Events>(name: K, listener: Listener<Events[K]>): () => void {
    const off = this.on(name, (...args: Events[K]) => {
      off();
      return listener(...args);
    });
    return off;
  }

  off<K extends keyof Events>(name: K, listener: Listener<Events[K]>): void {
    this.#listeners.get(name)?.delete(listener as Listener<never>);
  }

  /** Number of listeners for `name`. */
  listenerCount(name: keyof Events): number {
    return this.#listeners.get(name)?.size ?? 0;
  }

  emit<K extends keyof Events>(name: K, ...args: Events[K]): void {
    const set = this.#listeners.get(name);
    if (set === undefined) return;
    for (const listener of [...set]) {
      try {
        returnedPromise((listener as Listener<Events[K]>)(...args))?.then(undefined, this.#onListenerError);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }

  removeAllListeners(): void {
    this.#listeners.clear();
  }
}

/**
 * Emit an `error` event; with no listener for it, warn on the console instead of dropping it (an unobserved
 * error must not vanish silently, nor crash the process the way an unhandled Node `error` event would).
 */
export function emitError<Events extends EventMap & { error: [error: Error] }>(
  emitter: Emitter<Events>,
  error: Error,
  source: string,
): void {
  if (emitter.listenerCount('error') > 0) emitter.emit('error', ...([error] as Events['error']));
  else console.warn(`[session-hub ${source}] ${error.message}`, error);
}

/** Default for listener errors: report them as uncaught (never swallowed), without breaking the emitter. */
export function reportListenerError(error: unknown): void {
  const report = (globalThis as { reportError?: (error: unknown) => void }).reportError;
  if (typeof report === 'function') report(error);
  else
    queueMicrotask(() => {
      throw error;
    });
}
