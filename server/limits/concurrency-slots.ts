/**
 * A fixed number of slots for work that may not run more than `capacity` times at once (e.g. HTTP event pages,
 * each holding up to a page of events in memory). `tryAcquire` never waits: a caller that finds every slot taken is
 * refused at once, so a flood of requests costs no queue.
 */
export class ConcurrencySlots {
  readonly capacity: number;
  #used = 0;

  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
    this.capacity = capacity;
  }

  /** Slots in use now. */
  get used(): number {
    return this.#used;
  }

  /** Take a slot: returns its (idempotent) release function, or undefined when every slot is taken. */
  tryAcquire(): (() => void) | undefined {
    if (this.#used >= this.capacity) return undefined;
    this.#used++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#used--;
    };
  }
}
