interface Waiter<T> {
  readonly resolve: (result: IteratorResult<T>) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * A pull queue bridging pushed values to `for await`: values pushed before they are pulled wait in order, and so
 * do pulls made before values arrive (several `next()` calls in a row each get the next value); `end()` finishes
 * the iteration once the queue is drained; `fail(error)` rejects the next pull (later pulls are done); `return()`
 * ends it at once, settling pending pulls as done.
 */
export class PushIterator<T> implements AsyncIterableIterator<T> {
  readonly #queue: T[] = [];
  readonly #waiting: Waiter<T>[] = [];
  #done = false;
  #error: unknown;
  readonly #onReturn: () => void;

  constructor(onReturn: () => void) {
    this.#onReturn = onReturn;
  }

  push(value: T): void {
    if (this.#done) return;
    const waiter = this.#waiting.shift();
    if (waiter !== undefined) waiter.resolve({ value, done: false });
    else this.#queue.push(value);
  }

  end(): void {
    if (this.#done) return;
    this.#done = true;
    this.#settleWaiting();
  }

  fail(error: unknown): void {
    if (this.#done) return;
    this.#error = error;
    this.#done = true;
    this.#settleWaiting();
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#queue.length > 0) return Promise.resolve({ value: this.#queue.shift() as T, done: false });
    if (this.#done) return this.#finish();
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
    });
  }

  return(): Promise<IteratorResult<T>> {
    this.#queue.length = 0;
    this.#done = true;
    this.#error = undefined;
    this.#settleWaiting();
    this.#onReturn();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  #finish(): Promise<IteratorResult<T>> {
    if (this.#error === undefined) return Promise.resolve({ value: undefined, done: true });
    const error = this.#error;
    this.#error = undefined;
    return Promise.reject(error);
  }

  /** Once done: the first pending pull gets the error (if any), the others are done. */
  #settleWaiting(): void {
    for (const waiter of this.#waiting.splice(0)) this.#finish().then(waiter.resolve, waiter.reject);
  }
}
