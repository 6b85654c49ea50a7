import type { CommittedBatch, StoreWatchHandlers } from './event-store.ts';

/** Where a store reports errors it cannot throw to a caller (a watcher's handler threw, a bad notification). */
export type StoreErrorReporter = (error: Error) => void;

/** Default reporter: a process warning (visible in the log, never silent). */
export const reportAsWarning: StoreErrorReporter = (error) => process.emitWarning(error);

/** The watchers of each session of one store instance, with delivery that isolates a failing handler. */
export class WatcherRegistry {
  readonly #watchers = new Map<string, Set<StoreWatchHandlers>>();
  readonly #report: StoreErrorReporter;

  constructor(report: StoreErrorReporter) {
    this.#report = report;
  }

  /** Register; returns true when this is the session's first watcher. */
  add(sessionId: string, handlers: StoreWatchHandlers): boolean {
    let set = this.#watchers.get(sessionId);
    const first = set === undefined;
    if (set === undefined) {
      set = new Set();
      this.#watchers.set(sessionId, set);
    }
    set.add(handlers);
    return first;
  }

  /** Unregister; returns true when the session has no watcher left (false if it was not registered). */
  remove(sessionId: string, handlers: StoreWatchHandlers): boolean {
    const set = this.#watchers.get(sessionId);
    if (set === undefined || !set.delete(handlers)) return false;
    if (set.size > 0) return false;
    this.#watchers.delete(sessionId);
    return true;
  }

  sessionIds(): string[] {
    return [...this.#watchers.keys()];
  }

  deliver(batch: CommittedBatch): void {
    const set = this.#watchers.get(batch.sessionId);
    if (set === undefined) return;
    for (const handlers of [...set]) {
      if (!set.has(handlers)) continue; // removed by an earlier handler of this delivery
      this.#call(() => handlers.onCommitted(batch));
    }
  }

  /** Tell the watchers of `sessionIds` (default: all) that they may have missed notifications. */
  resync(sessionIds: readonly string[] = this.sessionIds()): void {
    for (const sessionId of sessionIds) {
      const set = this.#watchers.get(sessionId);
      if (set === undefined) continue;
      for (const handlers of [...set]) {
        if (set.has(handlers)) this.#call(() => handlers.onResync());
      }
    }
  }

  clear(): void {
    this.#watchers.clear();
  }

  #call(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.#report(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
