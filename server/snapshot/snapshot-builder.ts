import { randomUUID } from 'node:crypto';
import { MessageProjector } from '../../shared/index.ts';
import type { Logger } from '../logger.ts';
import type { HubMetrics } from '../metrics.ts';
import type { CommittedBatch, EventStore } from '../store/event-store.ts';
import type { SnapshotPolicy } from './snapshot-policy.ts';
import { decodeStoredPage } from '../store/codec/stored-events.ts';
import { largestBody, StoreReadSizer, type StoreReadLimits } from '../limits/store-reads.ts';

export interface SnapshotBuilderOptions {
  readonly store: EventStore;
  readonly policy: SnapshotPolicy;
  readonly nodeName: string;
  readonly logger: Logger;
  readonly metrics: HubMetrics;
  /** Events read from the store per page while building. */
  /** Every read of the log's tail is bounded by bytes from these. */
  readonly reads: StoreReadLimits;
}

/** What a node counts per session since it last asked for a build. */
interface Pending {
  epoch: string;
  events: number;
  bytes: number;
}

type BuildResult = 'written' | 'stale' | 'leased' | 'current';

/**
 * Builds sessions' projection snapshots off the append path. It observes this node's own commits (after their acks
 * were sent) and, when a session passed a trigger of its policy (events, bytes, a turn end), builds the snapshot in
 * the background: it takes the session's lease in the store (one builder per session across the nodes), restores
 * the stored snapshot (or starts from seq 0 when there is none, or it is corrupt or of another epoch or version),
 * applies the events after it read page by page from the store, and writes the result with the store's
 * conditional write (the epoch must still match). A failed build is counted and logged (once until a build
 * succeeds again); it never reaches an append.
 */
export class SnapshotBuilder {
  readonly #options: SnapshotBuilderOptions;
  readonly #owner = `${randomUUID()}`;
  /** Per session: what was committed since the last trigger (Map order: least recently committed first). */
  readonly #pending = new Map<string, Pending>();
  /** Sessions being built, and those asked again while building. */
  readonly #building = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();
  #failureLogged = false;
  #closed = false;

  constructor(options: SnapshotBuilderOptions) {
    this.#options = options;
  }

  /** This node committed `batch` (`bytes`: its events' size). Cheap: counts, and maybe starts a build. */
  observe(batch: CommittedBatch, bytes: number): void {
    const { policy } = this.#options;
    if (!policy.enabled || this.#closed || batch.events.length === 0) return;
    const { sessionId, epoch } = batch;
    let pending = this.#pending.get(sessionId);
    if (pending === undefined || pending.epoch !== epoch) pending = { epoch, events: 0, bytes: 0 };
    this.#pending.delete(sessionId); // re-inserted last: the map stays in commit order
    pending.events += batch.events.length;
    pending.bytes += bytes;
    const turnEnded = policy.atTurnEnd && batch.events.some((event) => event.type === 'turn/end');
    if (turnEnded || pending.events >= policy.everyEvents || pending.bytes >= policy.everyBytes) {
      this.request(sessionId);
      return;
    }
    this.#pending.set(sessionId, pending);
    if (this.#pending.size > policy.maxTrackedSessions) this.#pending.delete(this.#pending.keys().next().value!);
  }

  /** Builds the session's snapshot soon (after a corrupt one was found, or a trigger fired). */
  request(sessionId: string): void {
    if (!this.#options.policy.enabled || this.#closed) return;
    this.#pending.delete(sessionId);
    if (this.#building.has(sessionId)) {
      this.#again.add(sessionId);
      return;
    }
    const build = this.#run(sessionId).finally(() => {
      this.#building.delete(sessionId);
      if (this.#again.delete(sessionId)) this.request(sessionId);
    });
    this.#building.set(sessionId, build);
  }

  /** Resolves when no build is running (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.#building.size > 0) await Promise.all([...this.#building.values()]);
  }

  /** Stops taking builds and waits for the running ones. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#again.clear();
    await this.idle();
  }

  async #run(sessionId: string): Promise<void> {
    const { metrics, logger } = this.#options;
    try {
      const result = await this.#leasedBuild(sessionId);
      if (result !== 'current') metrics.snapshotBuilds.inc({ result });
      this.#failureLogged = false;
    } catch (error) {
      metrics.snapshotBuilds.inc({ result: 'failed' });
      if (!this.#failureLogged) {
        this.#failureLogged = true;
        logger.warn({ err: error, sessionId }, 'snapshot build failed (appends are not affected; logged once)');
      }
    }
  }

  async #leasedBuild(sessionId: string): Promise<BuildResult> {
    const { snapshots } = this.#options.store;
    if (!(await snapshots.lease(sessionId, this.#owner, this.#options.policy.leaseMs))) return 'leased';
    try {
      return await this.#build(sessionId);
    } finally {
      await snapshots.release(sessionId, this.#owner);
    }
  }

  async #build(sessionId: string): Promise<BuildResult> {
    const { store, reads, metrics, logger } = this.#options;
    const read = await store.snapshots.get(sessionId);
    if (read.status === 'corrupt') {
      metrics.snapshotsCorrupt.inc();
      logger.warn({ sessionId, reason: read.reason }, 'stored snapshot is corrupt: rebuilding it from the log');
    }
    const epoch = read.status === 'found' ? read.snapshot.epoch : read.epoch;
    if (epoch === undefined) return 'stale';
    const projector =
      read.status === 'found' ? MessageProjector.fromState(read.snapshot.state) : new MessageProjector();
    const baseLength = projector.length;
    // Up to the head read with the snapshot: a session appended to without pause still gets a snapshot.
    const sizer = new StoreReadSizer(reads);
    while (projector.length <= read.headSeq) {
      const limit = Math.min(sizer.count, read.headSeq + 1 - projector.length);
      const stored = await store.readStoredPage(sessionId, projector.length, limit, sizer.maxBytes);
      sizer.observe(largestBody(stored.bodies));
      const page = decodeStoredPage(sessionId, stored);
      if (page.epoch !== epoch || page.events.length === 0) return 'stale';
      for (const event of page.events) projector.advance(event);
    }
    if (projector.length === baseLength || projector.length === 0) return 'current';
    const state = projector.exportState();
    return store.snapshots.put(sessionId, { epoch, seq: state.length - 1, state });
  }
}
