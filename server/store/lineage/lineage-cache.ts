import type { Lineage } from '../fork-store.ts';

/** How many sessions' lineage records a `LineageCache` keeps (the least recently used goes first). */
export const LINEAGE_CACHE_SIZE = 4096;

/** A session's lineage as read in one of its epochs: undefined when it is no fork. */
export interface EpochLineage {
  readonly epoch: string;
  readonly lineage: Lineage | undefined;
}

/**
 * What the lineage layer knows of each session's lineage, per epoch (docs/storage.md#forks): a fork's lineage is
 * written with its epoch and never changes while that epoch lives, and a session that is no fork in an epoch never
 * becomes one in it (a fork is made only where no session is, with a new epoch). So an entry is trusted for the
 * epoch it was read in only: a session deleted and made again under the same id (a new epoch) misses and is read
 * again. Bounded: at most `size` sessions, the least recently used dropped first.
 */
export class LineageCache {
  readonly #size: number;
  readonly #entries = new Map<string, EpochLineage>();

  constructor(size = LINEAGE_CACHE_SIZE) {
    this.#size = size;
  }

  /** The session's lineage in `epoch`, when it was read in that epoch; undefined when unknown. */
  get(sessionId: string, epoch: string): EpochLineage | undefined {
    const entry = this.#entries.get(sessionId);
    if (entry?.epoch !== epoch) return undefined;
    this.#entries.delete(sessionId);
    this.#entries.set(sessionId, entry);
    return entry;
  }

  /** The entry last read for the session, whatever its epoch (a guess to check against the epoch a read finds). */
  latest(sessionId: string): EpochLineage | undefined {
    return this.#entries.get(sessionId);
  }

  set(sessionId: string, entry: EpochLineage): void {
    this.#entries.delete(sessionId);
    this.#entries.set(sessionId, entry);
    if (this.#entries.size > this.#size) this.#entries.delete(this.#entries.keys().next().value!);
  }

  delete(sessionId: string): void {
    this.#entries.delete(sessionId);
  }

  get size(): number {
    return this.#entries.size;
  }
}
