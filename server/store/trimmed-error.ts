/**
 * A read asked for seqs the hot log no longer holds: they were trimmed (archived, or past retention). `firstSeq` is
 * the first seq the log still holds; a read from there on works. Wire code `GONE` (HTTP 410), with `firstSeq` in
 * its details: never an empty or gapped page.
 */
export class StoreTrimmedError extends Error {
  override readonly name = 'StoreTrimmedError';
  readonly code = 'GONE';
  readonly firstSeq: number;
  /**
   * The session's epoch as the refused read found it, where the read knows it (the engines' page reads): what a
   * reader knows of the session in that epoch (a fork's lineage) still holds.
   */
  readonly epoch: string | undefined;

  constructor(sessionId: string, fromSeq: number, firstSeq: number, epoch?: string) {
    super(`session ${sessionId}: seq ${fromSeq} is gone; its log starts at seq ${firstSeq}`);
    this.firstSeq = firstSeq;
    this.epoch = epoch;
  }
}

/**
 * Throws `StoreTrimmedError` when `fromSeq` is below the log's first seq `firstSeq` (both engines' reads), with the
 * session's `epoch` when the read got it in the same atomic step.
 */
export function checkNotTrimmed(sessionId: string, fromSeq: number, firstSeq: number, epoch?: string): void {
  if (fromSeq < firstSeq) throw new StoreTrimmedError(sessionId, fromSeq, firstSeq, epoch);
}

/** A read's `catch`: hands back a `StoreTrimmedError` (for a reader that goes on from its `firstSeq`), rethrows the rest. */
export function skipTrimmed(error: unknown): StoreTrimmedError {
  if (error instanceof StoreTrimmedError) return error;
  throw error;
}
