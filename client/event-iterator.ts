/**
 * A pull queue bridging pushed values to `for await`: values pushed before they are pulled wait in order;
 * `end()` finishes the iteration once the queue is drained; `fail(error)` rejects the next pull.
 */
export class PushIterator<T> implements AsyncIterableIterator<T> {
  readonly #queue: T[] = [];
  #waiting: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void } | undefined;
  #done = false;
  #error: unknown;
  readonly #onReturn: () => void;

  constructor(onReturn: () => void) {
    this.#onReturn = onReturn;
  }

  push(value: T): void {
    if (this.#done) return;
    const waiting = this.#waiting;
    if (waiting !== undefined) {
      this.#waiting = undefined;
      waiting.resolve({ value, done: false });
    } else this.#queue.push(value);
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
      this.#waiting = { resolve, reject };
    });
  }

  return(): Promise<IteratorResult<T>> {
    this.#queue.length = 0;
    this.#done = true;
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

  #settleWaiting(): void {
    const waiting = this.#waiting;
    if (waiting === undefined) return;
    this.#waiting = undefined;
    this.#finish().then(waiting.resolve, waiting.reject);
  }
}
