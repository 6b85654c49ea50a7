/**
 * Segment read-ahead, per backend instance: at most one load in flight per session, in the background, its result
 * going to the segment cache (bounded in bytes by the cache). A load that fails is forgotten: the reader that next
 * needs that segment loads it itself and sees the error then, so a read-ahead never rejects.
 */
export class SegmentReadAhead {
  private readonly inFlight = new Map<string, { readonly key: string; readonly done: Promise<void> }>();

  /** Starts `load` (of the segment `key`) for `session` unless one of the session's loads is in flight already. */
  start(session: string, key: string, load: () => Promise<unknown>): void {
    if (this.inFlight.has(session)) return;
    const entry = {
      key,
      done: load().then(
        () => undefined,
        () => undefined,
      ),
    };
    this.inFlight.set(session, entry);
    void entry.done.then(() => {
      if (this.inFlight.get(session) === entry) this.inFlight.delete(session);
    });
  }

  /** The load of `key` in flight for `session` (settles, never rejects), or undefined when there is none. */
  loading(session: string, key: string): Promise<void> | undefined {
    const entry = this.inFlight.get(session);
    return entry?.key === key ? entry.done : undefined;
  }

  /** Settles once the session's load in flight (if any) has (before its segments are forgotten: a delete). */
  async drain(session: string): Promise<void> {
    await this.inFlight.get(session)?.done;
  }

  /** Settles once every load in flight has (a backend's `close`). */
  async drainAll(): Promise<void> {
    await Promise.all([...this.inFlight.values()].map((entry) => entry.done));
  }
}
