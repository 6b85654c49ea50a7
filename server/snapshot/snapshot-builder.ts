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

/** Bytes this node committed to a session and has not yet added to the session's count in the store. */
interface Pending {
  epoch: string;
  bytes: number;
}

/** A node adds its bytes to the session's count in the store once it holds this share of `everyBytes`. */
const BYTE_FLUSH_SHARE = 16;

type BuildResult = 'written' | 'stale' | 'leased' | 'current';

/**
 * Builds sessions' projection snapshots off the append path. It observes this node's own commits (after their acks
 * were sent) and, when a session passed a trigger of its policy (events, bytes, a turn end: decided from the session,
 * not from what this node committed, see `observe`), builds the snapshot in the background: it takes the session's
 * lease in the store (one builder per session across the nodes), restores
 * the stored snapshot (or starts from seq 0 when there is none, or it is corrupt or of another epoch or version),
 * applies the events after it read page by page from the store, and writes the result with the store's
 * conditional write (the epoch must still match). A failed build is counted and logged (once until a build
 * succeeds again); it never reaches an append.
 */
export class SnapshotBuilder {
  readonly #options: SnapshotBuilderOptions;
  readonly #owner = `${randomUUID()}`;
  /** Per session: bytes committed here not yet counted in the store (Map order: least recently committed first). */
  readonly #pending = new Map<string, Pending>();
  /** Sessions being built, and those asked again while building. */
  readonly #building = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();
  #failureLogged = false;
  #closed = false;

  constructor(options: SnapshotBuilderOptions) {
    this.#options = options;
  }

  /**
   * This node committed `batch` (`bytes`: its events' size). Cheap: decides from the session whether a trigger
   * fired, and maybe starts a build. Every node applies the same rules to its own commits, so a trigger fires on
   * whichever node commits the batch that reaches it: the event trigger when the batch holds a seq `k × everyEvents
   * - 1`, the turn-end trigger when it holds a `turn/end`, the byte trigger when the session's byte count in the
   * store (every node adds its bytes, in shares of `everyBytes / 16`) reaches `everyBytes`.
   */
  observe(batch: CommittedBatch, bytes: number): void {
    const { policy } = this.#options;
    const { events, sessionId, epoch } = batch;
    if (!policy.enabled || this.#closed || events.length === 0) return;
    const firstSeq = events[0]!.seq;
    const nextSeq = events[events.length - 1]!.seq + 1;
    const everyEvents = Math.floor(nextSeq / policy.everyEvents) > Math.floor(firstSeq / policy.everyEvents);
    if (everyEvents || (policy.atTurnEnd && events.some((event) => event.type === 'turn/end'))) {
      this.request(sessionId);
    }
    this.#countBytes(sessionId, epoch, bytes);
  }

  /** Adds `bytes` to the session's count: in the store once this node holds a share of `everyBytes`. */
  #countBytes(sessionId: string, epoch: string, bytes: number): void {
    const { policy, store } = this.#options;
    let pending = this.#pending.get(sessionId);
    if (pending === undefined || pending.epoch !== epoch) pending = { epoch, bytes: 0 };
    this.#pending.delete(sessionId); // re-inserted last: the map stays in commit order
    pending.bytes += bytes;
    if (pending.bytes < Math.ceil(policy.everyBytes / BYTE_FLUSH_SHARE)) {
      this.#pending.set(sessionId, pending);
      if (this.#pending.size > policy.maxTrackedSessions) this.#pending.delete(this.#pending.keys().next().value!);
      return;
    }
    store.snapshots.countBytes(sessionId, epoch, pending.bytes, policy.everyBytes).then(
      (reached) => {
        if (reached) this.request(sessionId);
      },
      (error: unknown) => this.#failed(error, sessionId),
    );
  }

  /** Builds the session's snapshot soon (after a corrupt one was found, or a trigger fired). */
  request(sessionId: string): void {
    if (!this.#options.policy.enabled || this.#closed) return;
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
    const { metrics } = this.#options;
    try {
      const result = await this.#leasedBuild(sessionId);
      if (result !== 'current') metrics.snapshotBuilds.inc({ result });
      this.#failureLogged = false;
    } catch (error) {
      this.#failed(error, sessionId);
    }
  }

  /** A build (or a byte count) failed: counted, and logged once until a build succeeds again. */
  #failed(error: unknown, sessionId: string): void {
    this.#options.metrics.snapshotBuilds.inc({ result: 'failed' });
    if (this.#failureLogged) return;
    this.#failureLogged = true;
    this.#options.logger.warn(
      { err: error, sessionId },
      'snapshot build failed (appends are not affected; logged once)',
    );
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
