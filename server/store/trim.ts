/**
 * Remove the events of a session's hot log below `beforeSeq` (`EventStore.trim`): for the archive (archive, then
 * trim) and retention. Seqs and epoch never change: the log's events keep their seqs, its head stays, and the next
 * commit continues after it.
 */
export interface TrimRequest {
  readonly sessionId: string;
  /** The trim happens only in this epoch (the one whose events were archived): else `conflict`, nothing changed. */
  readonly epoch: string;
  /** The first seq to keep: the log's new first seq. At most the head seq + 1 (that trims every event). */
  readonly beforeSeq: number;
}

/**
 * What a trim did. `trimmed`: the hot log now starts at `firstSeq` (`beforeSeq`, or a later first seq an earlier
 * trim left: trimming below the current first seq changes nothing, `removed` 0). `conflict`: the session's epoch
 * is not the request's (or it has none). `beyond-head`: `beforeSeq` is past the head seq + 1. Neither of the last
 * two changes anything. `epoch`, `firstSeq` and `headSeq` are the session's after the call.
 */
export interface TrimResult {
  readonly status: 'trimmed' | 'conflict' | 'beyond-head';
  readonly epoch: string;
  /** The first seq the hot log holds (0 for a log never trimmed). */
  readonly firstSeq: number;
  readonly headSeq: number;
  /** Events this call removed. */
  readonly removed: number;
}
