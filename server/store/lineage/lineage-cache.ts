import type { ForkStore, Lineage, LineageRead } from '../fork-store.ts';
import type { RedactionStore } from '../redaction-store.ts';

/** How many sessions a `LineageCache` keeps each fact of (the least recently used goes first). */
export const LINEAGE_CACHE_SIZE = 4096;

/** A fact about a session that holds for as long as one of its epochs lives. */
interface InEpoch<T> {
  readonly epoch: string;
  readonly value: T;
}

/** At most `size` sessions' facts, each for the epoch it was read in; the least recently used dropped first. */
class EpochMap<T> {
  readonly #size: number;
  readonly #entries = new Map<string, InEpoch<T>>();

  constructor(size: number) {
    this.#size = size;
  }

  get(sessionId: string, epoch: string): InEpoch<T> | undefined {
    const entry = this.#entries.get(sessionId);
    if (entry?.epoch !== epoch) return undefined;
    this.#entries.delete(sessionId);
    this.#entries.set(sessionId, entry);
    return entry;
  }

  latest(sessionId: string): InEpoch<T> | undefined {
    return this.#entries.get(sessionId);
  }

  set(sessionId: string, epoch: string, value: T): void {
    this.#entries.delete(sessionId);
    this.#entries.set(sessionId, { epoch, value });
    if (this.#entries.size <= this.#size) return;
    for (const oldest of this.#entries.keys()) {
      this.#entries.delete(oldest);
      return;
    }
  }

  delete(sessionId: string): void {
    this.#entries.delete(sessionId);
  }
}

/**
 * What the lineage layer reads of each session, kept per epoch (docs/storage.md#forks): a fork's lineage is written
 * with its epoch and never changes while that epoch lives, a session that is no fork in an epoch never becomes one
 * in it (a fork is made only where no session is, with a new epoch), and the epochs an epoch replaced by redactions
 * are fixed when it is made. So each fact is trusted for the epoch it was read in only: a session deleted and made
 * again under the same id (a new epoch), on this node or another, misses and is read again. Epochs are what a read
 * of the session just found (a refused page read names it, a head and a snapshot read say it).
 */
export class LineageCache {
  readonly #forks: ForkStore;
  readonly #redactions: RedactionStore;
  readonly #lineages: EpochMap<Lineage | undefined>;
  readonly #prior: EpochMap<readonly string[]>;

  constructor(forks: ForkStore, redactions: RedactionStore, size = LINEAGE_CACHE_SIZE) {
    this.#forks = forks;
    this.#redactions = redactions;
    this.#lineages = new EpochMap(size);
    this.#prior = new EpochMap(size);
  }

  /** The session's lineage: kept when `epoch` is the one it was read in, else read (and kept for the epoch read). */
  async lineage(sessionId: string, epoch: string | undefined): Promise<LineageRead> {
    const known = epoch === undefined ? undefined : this.#lineages.get(sessionId, epoch);
    if (known !== undefined) return { epoch: known.epoch, lineage: known.value };
    const read = await this.#forks.lineage(sessionId);
    if (read.epoch !== undefined) this.#lineages.set(sessionId, read.epoch, read.lineage);
    return read;
  }

  /** The lineage last read for the session, whatever its epoch: a guess, to check against the epoch a read finds. */
  guess(sessionId: string): Lineage | undefined {
    return this.#lineages.latest(sessionId)?.value;
  }

  /** `redactions.priorEpochs(sessionId, epoch)`, read once per epoch. */
  async priorEpochs(sessionId: string, epoch: string): Promise<readonly string[]> {
    const known = this.#prior.get(sessionId, epoch);
    if (known !== undefined) return known.value;
    const prior = await this.#redactions.priorEpochs(sessionId, epoch);
    this.#prior.set(sessionId, epoch, prior);
    return prior;
  }

  /** Forget the session (deleted through this node; other nodes find out by its epoch). */
  delete(sessionId: string): void {
    this.#lineages.delete(sessionId);
    this.#prior.delete(sessionId);
  }
}
