/**
 * How one store read is bounded. Every read passes `readBytes` as the store's `maxBytes`: the store returns at
 * most that many bytes of bodies (one event at least) and says when it cut a page short (`StoredPage.truncated`),
 * whatever the events' sizes. The count asked for is chosen so that the read usually fits anyway (on Redis a raw
 * reply past its budget is dropped and read again): the first read of a reader assumes every event is as large as
 * an event may be (`maxEventBytes`), later ones assume the largest event the reader has seen so far (never less).
 * Every reader of the store uses it: catch-up pages, the append cache's loads and refreshes, a channel's gap fills
 * and resyncs, the snapshot builder, HTTP event pages (and the CLI's export, which reads those).
 */
export interface StoreReadLimits {
  /** Most events per read (`catchUpPageSize`). */
  readonly pageSize: number;
  /** What a read must assume of an event it has not seen: the largest an event may be (`maxEventBytes`). */
  readonly maxEventBytes: number;
  /** Bytes of events one read may hold, about: four frames' worth (`4 × maxFrameBytes`). */
  readonly readBytes: number;
}

/** The read limits of a node's limits. */
export function storeReadLimits(limits: {
  readonly catchUpPageSize: number;
  readonly maxFrameBytes: number;
  readonly maxEventBytes: number;
}): StoreReadLimits {
  return Object.freeze({
    pageSize: limits.catchUpPageSize,
    maxEventBytes: limits.maxEventBytes,
    readBytes: 4 * limits.maxFrameBytes,
  });
}

/** Events a read of events of `eventBytes` each may ask for: at least one, at most `pageSize`. */
function countFor(limits: StoreReadLimits, eventBytes: number): number {
  return Math.max(1, Math.min(limits.pageSize, Math.floor(limits.readBytes / Math.max(1, eventBytes))));
}

/** Events a read may ask for whatever the events are (each as large as allowed): 16 with the defaults. */
export function safeReadCount(limits: StoreReadLimits): number {
  return countFor(limits, limits.maxEventBytes);
}

/** Whether a page of `count` events asked for `limit` reached the end of the log (short, and not cut for bytes). */
export function endedLog(count: number, limit: number, truncated: boolean | undefined): boolean {
  return count < limit && truncated !== true;
}

/** The largest of some stored bodies, in bytes (0 for none). */
export function largestBody(bodies: readonly Uint8Array[]): number {
  let largest = 0;
  for (const body of bodies) if (body.length > largest) largest = body.length;
  return largest;
}

/**
 * The read size of one reader that pages through a log: `count` is `safeReadCount` until the reader has seen an
 * event, then sized to the largest event seen so far (which only grows: a session whose events grow large makes
 * its reads small, and they stay small).
 */
export class StoreReadSizer {
  readonly #limits: StoreReadLimits;
  /** The largest event seen (bytes as stored); 0 before the first. */
  #largest = 0;

  constructor(limits: StoreReadLimits) {
    this.#limits = limits;
  }

  /** The bytes of bodies one read may return (the store's `maxBytes`; one event at least). */
  get maxBytes(): number {
    return this.#limits.readBytes;
  }

  /** Events to ask for in the next read. */
  get count(): number {
    return this.#largest === 0 ? safeReadCount(this.#limits) : countFor(this.#limits, this.#largest);
  }

  /** A read returned events of which the largest takes `largestEventBytes` (0 when it returned none). */
  observe(largestEventBytes: number): void {
    if (largestEventBytes > this.#largest) this.#largest = largestEventBytes;
  }
}
