/**
 * The archive lease of a session: at most one archiver at a time per session, across every node that shares the
 * store (Redis `SET NX PX` on a key with the session's hash tag, so it works on a Cluster). A holder names itself
 * with a token of its own; only that token renews or releases the lease, and a lease nobody renews lapses after its
 * time, so a node that died mid-run blocks no one for longer than that.
 */
export interface ArchiveLeaseStore {
  /** Takes the lease for `ttlMs` if nobody holds it. True when `token` now holds it. */
  acquire(sessionId: string, token: string, ttlMs: number): Promise<boolean>;
  /** Extends the lease to `ttlMs` from now if `token` still holds it. False when it lapsed or another holds it. */
  renew(sessionId: string, token: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease back if `token` still holds it (compare and delete). True when it was released. */
  release(sessionId: string, token: string): Promise<boolean>;
}

/** Longest archive lease token (a node name and a random part are plenty). */
export const MAX_ARCHIVE_LEASE_TOKEN_LENGTH = 200;
