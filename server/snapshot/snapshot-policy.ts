/** When the hub takes a session's projection snapshot (docs/operations.md#snapshots). */
export interface SnapshotPolicy {
  /** Off: no snapshot is built (joins from a snapshot then start at seq 0). Default true. */
  readonly enabled: boolean;
  /** Build one each time the session's log reaches a multiple of this many events (seq k × N - 1). Default 500. */
  readonly everyEvents: number;
  /**
   * ... or after this many bytes of events (their JSON size) committed to the session, by any node, since the last
   * byte trigger (counted in the store). Default 512 KiB.
   */
  readonly everyBytes: number;
  /** ... or when a commit ends a turn (`turn/end`). Default true. */
  readonly atTurnEnd: boolean;
  /** How long a node holds a session's build lease (the other nodes skip that session meanwhile). Default 30 s. */
  readonly leaseMs: number;
  /** Sessions whose not yet counted bytes a node keeps (least recently committed ones beyond it are forgotten). */
  readonly maxTrackedSessions: number;
}

export const DEFAULT_SNAPSHOT_POLICY: SnapshotPolicy = Object.freeze({
  enabled: true,
  everyEvents: 500,
  everyBytes: 512 * 1024,
  atTurnEnd: true,
  leaseMs: 30_000,
  maxTrackedSessions: 10_000,
});

/** `input` over the defaults; throws `RangeError` naming the bad setting. */
export function resolveSnapshotPolicy(input: Partial<SnapshotPolicy> = {}): SnapshotPolicy {
  const policy = { ...DEFAULT_SNAPSHOT_POLICY, ...input };
  for (const name of ['everyEvents', 'everyBytes', 'leaseMs', 'maxTrackedSessions'] as const) {
    const value = policy[name];
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`snapshots.${name} must be a positive integer`);
  }
  for (const name of ['enabled', 'atTurnEnd'] as const) {
    if (typeof policy[name] !== 'boolean') throw new RangeError(`snapshots.${name} must be a boolean`);
  }
  return Object.freeze(policy);
}
