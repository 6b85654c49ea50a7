import { MessageProjector, type ProjectorState } from '../../shared/index.ts';
import type { Logger } from '../logger.ts';
import type { HubMetrics } from '../metrics.ts';
import type { EventStore } from '../store/event-store.ts';
import type { SnapshotBuilder } from './snapshot-builder.ts';

/** A snapshot as served to a join or an HTTP read: `seq` -1 and an empty state when the session has none. */
export interface ServedSnapshot {
  /** The session's epoch, undefined when it has none. */
  readonly epoch: string | undefined;
  readonly seq: number;
  readonly state: ProjectorState;
  /** The session's head, read with the snapshot. */
  readonly headSeq: number;
}

/** The projection of no events: what is served at seq -1. */
export const EMPTY_STATE: ProjectorState = Object.freeze(new MessageProjector().exportState());

/**
 * Where joins and HTTP reads get a session's snapshot: the store's, verified (a corrupt one is counted, logged and
 * rebuilt, never served), or an empty one at seq -1 (the events then follow from seq 0) while none is there, in which
 * case the builder is asked to make one.
 */
export class SnapshotSource {
  readonly #store: EventStore;
  readonly #builder: SnapshotBuilder;
  readonly #metrics: HubMetrics;
  readonly #logger: Logger;

  constructor(options: { store: EventStore; builder: SnapshotBuilder; metrics: HubMetrics; logger: Logger }) {
    this.#store = options.store;
    this.#builder = options.builder;
    this.#metrics = options.metrics;
    this.#logger = options.logger;
  }

  async read(sessionId: string): Promise<ServedSnapshot> {
    const read = await this.#store.snapshots.get(sessionId);
    if (read.status === 'found') {
      this.#metrics.snapshotReads.inc({ result: 'hit' });
      const { epoch, seq, state } = read.snapshot;
      return { epoch, seq, state, headSeq: read.headSeq };
    }
    this.#metrics.snapshotReads.inc({ result: 'miss' });
    if (read.status === 'corrupt') {
      this.#metrics.snapshotsCorrupt.inc();
      this.#logger.warn({ sessionId, reason: read.reason }, 'stored snapshot is corrupt: not served, rebuilding it');
    }
    if (read.headSeq >= 0) this.#builder.request(sessionId);
    return { epoch: read.epoch, seq: -1, state: EMPTY_STATE, headSeq: read.headSeq };
  }
}
