import { StoreRequestError } from '../event-store.ts';

/** Default key prefix of the Redis engine. */
export const DEFAULT_KEY_PREFIX = 'sh:';

/**
 * The Redis key names of one session. All share the hash tag `{<sessionId>}` (session ids never contain braces),
 * so they live in one Cluster slot and the commit script may touch them together.
 */
export interface SessionKeys {
  /** Stream of the session's events; entry id `<seq>-1`. */
  readonly log: string;
  /** String: the session's epoch. */
  readonly epoch: string;
  /**
   * Hash: idempotency key → `firstSeq:lastSeq:time`. Its field '' (never an idempotency key) marks the hash as
   * existing and holds the session's base: the first seq the stream holds once events were trimmed from it
   * (`EventStore.trim`), '' (0) until then. Every script computes the session's length (next seq) as base + `XLEN`.
   */
  readonly idempotency: string;
  /** Pub/sub channel of committed batches (same tag, so sharded pub/sub can replace it on Cluster). */
  readonly channel: string;
  /** Hash: the session's projection snapshot (`e` epoch, `s` seq, `v` the stored snapshot; snapshot-codec.ts). */
  readonly snapshot: string;
  /** String: the node building the session's snapshot, with a short expiry (`SET NX PX`). */
  readonly snapshotLease: string;
  /** Hash: each epoch a redaction made → the epoch it replaced (readers positioned in the old one may go on). */
  readonly epochs: string;
  /**
   * String: the token of the node archiving the session, with an expiry (`SET NX PX`; archive-lease.ts). Not
   * deleted with the session: deleting it under a running archiver would let a second one start; it lapses.
   */
  readonly archiveLease: string;
  /** Hash: the session's metadata (`rev`, `ca`, `cb`, `t`, `p`, `fs`, `l:<key>`; redis-metadata-scripts.ts). */
  readonly metadata: string;
  /** String: the session's retention tombstone, its expiry time (epoch ms), with its own expiry (`--expired-ttl`). */
  readonly expired: string;
  /** Hash: the lineage of a fork (`parent`, `forkSeq`, `parentEpoch`, `depth`); absent for a session that is none. */
  readonly lineage: string;
  /** Hash: the ids of the session's forks (direct children, which read their prefix from it) → when listed (ms). */
  readonly forks: string;
  /**
   * Stream: the session's log being built again with its archived prefix (restore-store.ts), entries as the log's,
   * with an expiry; RENAMEd to the log by the restore's swap.
   */
  readonly restoreStage: string;
}

/**
 * The field of a session's idempotency hash that holds its base: the first seq its stream holds (`''` or absent: 0,
 * never trimmed). A script that starts a stream at a later seq (a trim; a fork's child, whose own events start after
 * the fork point) sets it with `HSET <idempotency> '' <seq>`; every length is base + `XLEN` (redis-trim-scripts.ts).
 */
export const BASE_FIELD = '';

/** Throws `StoreRequestError` unless the prefix is usable: printable, at most 64 characters, no braces. */
export function checkKeyPrefix(prefix: string): void {
  // eslint-disable-next-line no-control-regex
  if (prefix.length > 64 || /[{}\u0000-\u001f\u007f]/u.test(prefix)) {
    throw new StoreRequestError('a key prefix must be at most 64 characters without braces or control characters');
  }
}

export function sessionKeys(prefix: string, sessionId: string): SessionKeys {
  const base = `${prefix}{${sessionId}}:`;
  return {
    log: `${base}log`,
    epoch: `${base}epoch`,
    idempotency: `${base}idem`,
    channel: `${base}ch`,
    snapshot: `${base}snap`,
    snapshotLease: `${base}snaplease`,
    epochs: `${base}epochs`,
    metadata: `${base}meta`,
    expired: `${base}expired`,
    lineage: `${base}fork`,
    forks: `${base}forks`,
    archiveLease: `${base}archlease`,
    restoreStage: `${base}restore`,
  };
}

/**
 * The keys of a session's data besides its epoch and log: what `deleteSession` and retention's `expire` delete
 * with them (a key added to `SessionKeys` for the session's data goes here too). Not the tombstone.
 */
export function sessionDataKeys(keys: SessionKeys): string[] {
  return [keys.idempotency, keys.snapshot, keys.snapshotLease, keys.metadata, keys.epochs, keys.restoreStage];
}

/** `keys` preceded by their count: the arguments of a script defined without a fixed number of keys. */
export function keysWithCount(keys: readonly string[]): (string | number)[] {
  return [keys.length, ...keys];
}

const escapeGlob = (text: string): string => text.replace(/[*?[\]\\]/g, (char) => `\\${char}`);

/**
 * SCAN MATCH pattern of the epoch keys under key prefix `prefix`, of the sessions whose id starts with
 * `sessionPrefix` (default: all). Glob characters of both are escaped: ids may contain them.
 */
export function epochKeyPattern(prefix: string, sessionPrefix = ''): string {
  return `${escapeGlob(prefix)}{${escapeGlob(sessionPrefix)}*}:epoch`;
}

/** The session id of an epoch key of this prefix (for listing sessions), or undefined. */
export function sessionIdOfEpochKey(prefix: string, key: string): string | undefined {
  if (!key.startsWith(`${prefix}{`) || !key.endsWith('}:epoch')) return undefined;
  return key.slice(prefix.length + 1, -'}:epoch'.length);
}

/** The session id of a notification channel of this prefix (`sessionKeys(prefix, id).channel`), or undefined. */
export function sessionIdOfChannel(prefix: string, channel: string): string | undefined {
  if (!channel.startsWith(`${prefix}{`) || !channel.endsWith('}:ch')) return undefined;
  return channel.slice(prefix.length + 1, -'}:ch'.length);
}
