import type { CommittedBatch, StoreWatchHandlers } from './event-store.ts';
import type { SessionMetadata } from './metadata-store.ts';
import { addMember, hasMember, membersOf, removeMember } from '../one-or-set.ts';

/** Where a store reports errors it cannot throw to a caller (a watcher's handler threw, a bad notification). */
export type StoreErrorReporter = (error: Error) => void;

/** Default reporter: a process warning (visible in the log, never silent). */
export const reportAsWarning: StoreErrorReporter = (error) => process.emitWarning(error);

/**
 * The watchers of each session of one store instance, with delivery that isolates a failing handler. A session's
 * one watcher (one channel per session on a node) is held as is, without a `Set` (`OneOrSet`).
 */
export class WatcherRegistry {
  readonly #watchers = new Map<string, StoreWatchHandlers | Set<StoreWatchHandlers>>();
  readonly #report: StoreErrorReporter;

  constructor(report: StoreErrorReporter) {
    this.#report = report;
  }

  /** Register; returns true when this is the session's first watcher. */
  add(sessionId: string, handlers: StoreWatchHandlers): boolean {
    const watchers = this.#watchers.get(sessionId);
    const added = addMember(watchers, handlers);
    if (added !== watchers) this.#watchers.set(sessionId, added);
    return watchers === undefined;
  }

  /** Unregister; returns true when the session has no watcher left (false if it was not registered). */
  remove(sessionId: string, handlers: StoreWatchHandlers): boolean {
    const watchers = this.#watchers.get(sessionId);
    if (!hasMember(watchers, handlers)) return false;
    const left = removeMember(watchers, handlers);
    if (left === undefined) {
      this.#watchers.delete(sessionId);
      return true;
    }
    if (left !== watchers) this.#watchers.set(sessionId, left);
    return false;
  }

  sessionIds(): string[] {
    return [...this.#watchers.keys()];
  }

  deliver(batch: CommittedBatch): void {
    const { sessionId } = batch;
    for (const handlers of membersOf(this.#watchers.get(sessionId))) {
      if (!this.#watching(sessionId, handlers)) continue; // removed by an earlier handler of this delivery
      this.#call(() => handlers.onCommitted(batch));
    }
  }

  /** A session's metadata changed: its watchers that listen for it get it. */
  metadata(sessionId: string, metadata: SessionMetadata): void {
    for (const handlers of membersOf(this.#watchers.get(sessionId))) {
      if (handlers.onMetadata !== undefined && this.#watching(sessionId, handlers)) {
        this.#call(() => handlers.onMetadata?.(metadata));
      }
    }
  }

  /** Tell the watchers of `sessionIds` (default: all) that they may have missed notifications. */
  resync(sessionIds: readonly string[] = this.sessionIds()): void {
    for (const sessionId of sessionIds) {
      for (const handlers of membersOf(this.#watchers.get(sessionId))) {
        if (this.#watching(sessionId, handlers)) this.#call(() => handlers.onResync());
      }
    }
  }

  clear(): void {
    this.#watchers.clear();
  }

  #watching(sessionId: string, handlers: StoreWatchHandlers): boolean {
    return hasMember(this.#watchers.get(sessionId), handlers);
  }

  #call(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.#report(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
