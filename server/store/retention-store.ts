import { HubErrorCode } from '../../shared/protocol.ts';
import { HubError } from '../hub-error.ts';

/**
 * Retention (docs/operations.md#retention): whole sessions deleted once idle past their rule, each leaving a
 * tombstone so that reads say `SESSION_EXPIRED` instead of showing an empty log. Each engine keeps the tombstone
 * beside the session (Redis: `<prefix>{<id>}:expired`, with its own expiry), deletes the session's keys and writes
 * the tombstone in one atomic step, and tells every node watching the session (its watchers get `onResync()`, as
 * for a deleted session).
 *
 * A session is expired while it has a tombstone and no epoch. A commit to an expired id is accepted: it starts a
 * new log (seq 0) under a fresh epoch, and from then on the tombstone is ignored (it lapses on its own expiry).
 */
export interface RetentionStore {
  /** Whether the session is expired (tombstone and no epoch), read in one atomic step. Never writes. */
  status(sessionId: string): Promise<ExpiryStatus>;
  /** The session's last activity: the commit time of its last event. Undefined when it has no epoch. Never writes. */
  activity(sessionId: string): Promise<SessionActivity | undefined>;
  /**
   * Deletes the session's data (events, epoch, idempotency keys, snapshot) and writes its tombstone, in one atomic
   * step, only if the conditions still hold; else nothing is written (see `ExpireResult`).
   */
  expire(sessionId: string, request: ExpireRequest): Promise<ExpireResult>;
  /**
   * One step of a walk over the sessions that have an epoch: start with cursor `''`, pass each answer's `cursor`
   * back; `''` again means the walk is done. About `count` keys are looked at per step (a step may return fewer or
   * no ids while more follow; an id may come twice, as with Redis `SCAN`). Sessions created during a walk may be
   * missed, and on the memory engine (an index into its list) a deletion during a walk may make it skip one: the
   * next walk sees them.
   */
  scan(cursor: string, count: number): Promise<SessionScanPage>;
  /**
   * Takes the node-wide sweep lease for `ttlMs` if it is free, or extends it if `owner` holds it: one sweeper at a
   * time across the nodes sharing the store. Resolves whether `owner` holds it now.
   */
  lease(owner: string, ttlMs: number): Promise<boolean>;
  /** Gives the sweep lease back if `owner` still holds it. */
  release(owner: string): Promise<void>;
}

export type ExpiryStatus =
  /** Tombstone present and no epoch: reads answer SESSION_EXPIRED. `expiredAt` in epoch ms. */
  | { readonly status: 'expired'; readonly expiredAt: number }
  /** Anything else: a session with an epoch, or one that never existed (or was deleted, or its tombstone lapsed). */
  | { readonly status: 'not-expired' };

export interface SessionActivity {
  readonly epoch: string;
  readonly headSeq: number;
  /** Commit time (epoch ms) of the last event; undefined when the log is empty. */
  readonly lastActivity: number | undefined;
}

export interface ExpireRequest {
  /** Expire only while the session's epoch is this one. Omitted: whatever the epoch. */
  readonly expectedEpoch?: string;
  /**
   * Expire only if the last event was committed at or before this time (epoch ms): a session written to since
   * the sweeper looked is kept, and so is one whose hot log holds no event (trimmed to nothing). Omitted: whatever
   * its activity.
   */
  readonly idleSince?: number;
  /**
   * With `idleSince`: a hot log that holds no event (its prefix archived and trimmed) counts as idle instead of
   * active. For a caller that knows the last activity from elsewhere (the archive's last event: tiered-retention.ts).
   */
  readonly emptyIsIdle?: boolean;
  /** The expiry time written in the tombstone (epoch ms). */
  readonly expiredAt: number;
  /** How long the tombstone is kept (ms); then the id reads as never written. */
  readonly tombstoneTtlMs: number;
}

export type ExpireResult =
  /** Deleted; the tombstone is written. `headSeq` and `lastActivity` are what the session had. */
  | {
      readonly status: 'expired';
      readonly epoch: string;
      readonly headSeq: number;
      readonly lastActivity: number | undefined;
    }
  /**
   * Written to after `idleSince`, or its hot log holds no event to tell (trimmed to nothing: its last activity is
   * not in the store; `lastActivity` undefined): nothing deleted.
   */
  | { readonly status: 'active'; readonly epoch: string; readonly lastActivity: number | undefined }
  /** Its epoch is not `expectedEpoch`: nothing deleted. */
  | { readonly status: 'conflict'; readonly epoch: string }
  /** It has no epoch (never written, deleted, or expired already): nothing written. */
  | { readonly status: 'missing' };

export interface SessionScanPage {
  /** Pass it to the next `scan`; `''` when the walk is done. */
  readonly cursor: string;
  readonly sessionIds: readonly string[];
}

/** Longest a tombstone may be kept: ten years. */
const MAX_TOMBSTONE_TTL_MS = 10 * 366 * 24 * 3600 * 1000;

/** Throws RangeError unless the request's times are usable (integers; a TTL from 1 ms to ten years). */
export function checkExpireRequest(request: ExpireRequest): void {
  const { idleSince, expiredAt, tombstoneTtlMs } = request;
  if (!Number.isSafeInteger(expiredAt) || expiredAt < 0) throw new RangeError('expiredAt must be epoch ms');
  if (idleSince !== undefined && !Number.isSafeInteger(idleSince)) throw new RangeError('idleSince must be epoch ms');
  if (!Number.isSafeInteger(tombstoneTtlMs) || tombstoneTtlMs < 1 || tombstoneTtlMs > MAX_TOMBSTONE_TTL_MS) {
    throw new RangeError('tombstoneTtlMs must be an integer number of ms from 1 to ten years');
  }
}

/** The error every read of an expired session gets: SESSION_EXPIRED (HTTP 410), final, with `expiredAt`. */
export function sessionExpiredError(sessionId: string, expiredAt: number): HubError {
  const when = new Date(expiredAt).toISOString();
  return new HubError(
    HubErrorCode.SESSION_EXPIRED,
    `session ${sessionId} expired at ${when} under the retention rules: its events are deleted`,
    { expiredAt },
  );
}

/** When the session is expired: its expiry time (epoch ms); else undefined. */
export async function expiredAtOf(retention: RetentionStore, sessionId: string): Promise<number | undefined> {
  const status = await retention.status(sessionId);
  return status.status === 'expired' ? status.expiredAt : undefined;
}

/** Throws `sessionExpiredError` when the session is expired. */
export async function refuseExpired(retention: RetentionStore, sessionId: string): Promise<void> {
  const expiredAt = await expiredAtOf(retention, sessionId);
  if (expiredAt !== undefined) throw sessionExpiredError(sessionId, expiredAt);
}
