import { MAX_FORK_DEPTH } from '../fork-store.ts';
import type { LineageCache } from './lineage-cache.ts';
import type { SessionSnapshot, SnapshotPutResult, SnapshotRead, SnapshotStore } from '../snapshot-store.ts';

/** The snapshot stores' byte trigger (`countBytes`), for engines that keep one. */
interface ByteTrigger {
  countBytes(sessionId: string, epoch: string, bytes: number, every: number): Promise<boolean>;
}

/**
 * Snapshots as the hub reads them (docs/storage.md#forks): a fork without a snapshot of its own is served its
 * parent's (recursively) when that one covers no more than the shared prefix (`seq ≤ forkSeq`) and belongs to the
 * epoch the fork was made from: the projection of the parent's seqs 0..seq is the fork's. It is tagged with the
 * fork's epoch and head. A fork's own snapshot is served only while no ancestor was redacted since the fork was made
 * (`#prefixRewritten`). Writes, leases and a fork's own snapshots are the engine's.
 */
export class LineageSnapshots implements SnapshotStore {
  readonly #inner: SnapshotStore;
  readonly #lineages: LineageCache;

  /** `lineages`: the lineage layer's (a session's lineage read once per epoch). */
  constructor(inner: SnapshotStore, lineages: LineageCache) {
    this.#inner = inner;
    this.#lineages = lineages;
  }

  get(sessionId: string): Promise<SnapshotRead> {
    return this.#get(sessionId, 0);
  }

  async #get(sessionId: string, hops: number): Promise<SnapshotRead> {
    const own = await this.#inner.get(sessionId);
    if (own.status === 'found' && (await this.#prefixRewritten(sessionId, own.snapshot.epoch))) {
      return { status: 'none', reason: 'other-epoch', epoch: own.snapshot.epoch, headSeq: own.headSeq };
    }
    if (own.status !== 'none' || own.reason !== 'missing' || own.epoch === undefined || hops >= MAX_FORK_DEPTH) {
      return own;
    }
    const { epoch, lineage } = await this.#lineages.lineage(sessionId, own.epoch);
    if (lineage === undefined || epoch !== own.epoch) return own;
    const inherited = await this.#get(lineage.parent, hops + 1);
    if (inherited.status !== 'found') return own;
    const { snapshot } = inherited;
    if (snapshot.epoch !== lineage.parentEpoch || snapshot.seq > lineage.forkSeq) return own;
    return { status: 'found', snapshot: { ...snapshot, epoch }, headSeq: own.headSeq };
  }

  /**
   * Whether a fork's shared prefix was rewritten since the fork was made: an ancestor is no longer in the epoch its
   * child was made from (a redaction of the parent gives it a new epoch, and never gives the old one back). A fork's
   * own snapshot projects that prefix but keeps the fork's epoch, which the parent's redaction does not change, so it
   * may hold the bodies the redaction replaced: it is not served (the join replays the log, redacted).
   */
  async #prefixRewritten(sessionId: string, epoch: string): Promise<boolean> {
    let { lineage } = await this.#lineages.lineage(sessionId, epoch);
    for (let hop = 0; lineage !== undefined && hop < MAX_FORK_DEPTH; hop++) {
      // The ancestor's epoch now (not a kept one: a change of it is what this looks for).
      const parent = await this.#lineages.lineage(lineage.parent, undefined);
      if (parent.epoch !== lineage.parentEpoch) return true;
      lineage = parent.lineage;
    }
    return false;
  }

  put(sessionId: string, snapshot: SessionSnapshot): Promise<SnapshotPutResult> {
    return this.#inner.put(sessionId, snapshot);
  }

  lease(sessionId: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.#inner.lease(sessionId, owner, ttlMs);
  }

  release(sessionId: string, owner: string): Promise<void> {
    return this.#inner.release(sessionId, owner);
  }

  /** The engine's byte trigger for snapshot builds, where it keeps one (false where it does not). */
  countBytes(sessionId: string, epoch: string, bytes: number, every: number): Promise<boolean> {
    const inner = this.#inner as Partial<ByteTrigger>;
    if (inner.countBytes === undefined) return Promise.resolve(false);
    return inner.countBytes(sessionId, epoch, bytes, every);
  }
}
