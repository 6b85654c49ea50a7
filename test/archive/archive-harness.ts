import type { ArchiveBackend } from '../../server/archive/archive-backend.ts';

/** One backend under test, with what a test needs to reach behind the seam (as an operator or a fault would). */
export interface ArchiveHarness {
  readonly backend: ArchiveBackend;
  /** A second instance on the same storage (another node, or the same one after a restart). */
  reopen(): Promise<ArchiveBackend>;
  /** Damages a session's stored events in place (a flipped byte, a changed row), bypassing the backend. */
  corrupt(sessionId: string): Promise<void>;
  /** Whether `marker` is anywhere in the session's live stored data (decompressed). */
  liveBytesContain(sessionId: string, marker: Buffer): Promise<boolean>;
  close(): Promise<void>;
}

export interface HarnessChoice {
  readonly name: string;
  readonly open: () => Promise<ArchiveHarness>;
}
