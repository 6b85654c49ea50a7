import { NO_EPOCH, type EventStore, type StoredPage } from '../store/event-store.ts';
import type { ArchiveBackend, ArchivedSession } from './archive-backend.ts';
import { firstDifference } from './archive-compare.ts';

/** The steps of a restore, in order, as `RestoreRunOptions.onStep` names them (fault tests stop a run at each). */
export type RestoreStep = 'leased' | 'planned' | 'staged' | 'swapped' | 'verified' | 'deleted';

/** How much a restore brings back into the hot store unless forced (Redis keeps it in memory). */
export const RESTORE_LIMITS = {
  /** Most archived events. */
  maxEvents: 1_000_000,
  /** Most archived body bytes (the archive's `bytes`). */
  maxBytes: 256 * 1024 * 1024,
} as const;

export interface RestoreRunOptions {
  /** The HOT store (not a `TieredStore`): the restore rebuilds its log. */
  readonly store: EventStore;
  readonly archive: ArchiveBackend;
  readonly sessionId: string;
  /** The run's archive lease token: no archive run (or other restore) of the session meanwhile. */
  readonly token: string;
  /** How long the lease lasts without renewal (renewed after each page). Default 60 s. */
  readonly leaseMs?: number;
  /** Most events per page read and staged. Default 2000. */
  readonly pageEvents?: number;
  /** Most body bytes per page. Default 4 MiB. */
  readonly pageBytes?: number;
  /** Refuse (`too-large`) a restore of more archived events than this. Default `RESTORE_LIMITS.maxEvents`. */
  readonly maxEvents?: number;
  /** Refuse (`too-large`) a restore of more archived bytes than this. Default `RESTORE_LIMITS.maxBytes`. */
  readonly maxBytes?: number;
  /** Restore whatever the size (the limits above are not checked). */
  readonly force?: boolean;
  /** Called after each step (once per staged page for `staged`); awaited. */
  readonly onStep?: (step: RestoreStep) => void | Promise<void>;
}

/**
 * What a restore did. `restored`: the hot log holds the session from `firstSeq` again (the archive's first seq) and
 * the archive is deleted; `restored` events came back from it (0 when an earlier run had swapped them in already and
 * died before deleting the archive), `bytes` of bodies; `copied` events were appended while it ran.
 * `too-large`: the archived part is over a limit (`events` > `maxEvents` or `bytes` > `maxBytes`): nothing changed.
 * `busy`: an archive run or another restore holds the session's lease. `idle`: nothing to restore (no archive, no
 * hot log, or an archive of a dead epoch). `gap`: the hot log was trimmed past the archive's end: the events
 * between are gone, nothing changed.
 */
export type RestoreRunResult =
  | {
      readonly status: 'restored';
      readonly epoch: string;
      readonly firstSeq: number;
      readonly restored: number;
      readonly bytes: number;
      readonly copied: number;
    }
  | {
      readonly status: 'too-large';
      readonly events: number;
      readonly bytes: number;
      readonly maxEvents: number;
      readonly maxBytes: number;
    }
  | { readonly status: 'busy' | 'idle' | 'gap' };

/** A restore stopped because the log changed under it (deleted, redacted) or the tiers differ: the archive stays. */
export class RestoreAbortedError extends Error {
  override readonly name = 'RestoreAbortedError';
  readonly code = 'RESTORE_ABORTED';
}

/** Swaps that find more than this many events appended since the copy stage them first (then swap again). */
const SWAP_COPY = 1000;
/** Swap attempts before a restore under a steady stream of appends gives up. */
const MAX_SWAPS = 8;

interface Plan {
  readonly epoch: string;
  readonly cold: ArchivedSession;
  /** The hot log's first seq when the run started: the archived events below it come back. */
  readonly hotFirst: number;
  readonly headSeq: number;
}

/**
 * Bring a session's archived prefix back into the hot store, then delete its archive (docs/operations.md,
 * "Restoring an archived session"): take the archive lease, build the log again in the store's restore stage (the
 * archived events below the hot log's first seq, then the hot events, page by page), swap it in place of the hot
 * log in one atomic step that also takes the events appended meanwhile, read the whole archived range back from
 * the hot log and compare it with the archive byte for byte, and only then delete the archive. A run that died
 * at any step leaves the session readable and exact: before the swap the hot log is untouched (the stage lapses);
 * after it the hot log holds everything, and the next run verifies it and deletes the archive.
 */
export async function restoreSession(options: RestoreRunOptions): Promise<RestoreRunResult> {
  const { store, sessionId, token } = options;
  const leaseMs = options.leaseMs ?? 60_000;
  if (!(await store.archiveLease.acquire(sessionId, token, leaseMs))) return { status: 'busy' };
  let swapped = false;
  try {
    await options.onStep?.('leased');
    const plan = await planRestore(options);
    if (typeof plan === 'string') return { status: plan };
    const { cold, hotFirst } = plan;
    const events = Math.max(0, hotFirst - cold.startSeq);
    const maxEvents = options.maxEvents ?? RESTORE_LIMITS.maxEvents;
    const maxBytes = options.maxBytes ?? RESTORE_LIMITS.maxBytes;
    if (options.force !== true && events > 0 && (events > maxEvents || cold.bytes > maxBytes)) {
      return { status: 'too-large', events, bytes: cold.bytes, maxEvents, maxBytes };
    }
    await options.onStep?.('planned');
    let copied = 0;
    let bytes = 0;
    if (events > 0) {
      await store.restore.discard(sessionId); // a stage an earlier run left
      bytes = await stageArchive(options, plan, leaseMs);
      await stageHot(options, plan.epoch, hotFirst, plan.headSeq + 1, leaseMs);
      copied = await swapIn(options, plan, leaseMs);
    }
    swapped = true;
    await options.onStep?.('swapped');
    await verifyRestored(options, plan);
    await options.onStep?.('verified');
    await renewOrAbort(options, leaseMs);
    await options.archive.delete(sessionId);
    await options.onStep?.('deleted');
    return { status: 'restored', epoch: plan.epoch, firstSeq: cold.startSeq, restored: events, bytes, copied };
  } finally {
    if (!swapped) await store.restore.discard(sessionId).catch(() => false);
    await store.archiveLease.release(sessionId, token).catch(() => false);
  }
}

async function renewOrAbort(options: RestoreRunOptions, leaseMs: number): Promise<void> {
  if (!(await options.store.archiveLease.renew(options.sessionId, options.token, leaseMs))) {
    throw new RestoreAbortedError(`session ${options.sessionId}: the archive lease lapsed during the restore`);
  }
}

async function planRestore(options: RestoreRunOptions): Promise<Plan | 'idle' | 'gap'> {
  const { store, archive, sessionId } = options;
  const head = await store.head(sessionId);
  if (head.epoch === NO_EPOCH) return 'idle';
  const cold = await archive.describe(sessionId);
  if (cold === undefined) return 'idle';
  // The archive continues the hot log in its epoch, or in one that redactions replaced by the hot one (tiered reads
  // serve it then: the archived seqs are the same). Any other is a dead epoch's (the archiver deletes it).
  if (cold.epoch !== head.epoch && !(await store.redactions.priorEpochs(sessionId, head.epoch)).includes(cold.epoch)) {
    return 'idle';
  }
  const hotFirst = head.firstSeq ?? 0;
  if (cold.nextSeq < hotFirst) return 'gap';
  return { epoch: head.epoch, cold, hotFirst, headSeq: head.headSeq };
}

/** Stages `page` at `seq`; anything but `staged` aborts. */
async function stagePage(options: RestoreRunOptions, seq: number, page: StoredPage, leaseMs: number): Promise<void> {
  const { sessionId } = options;
  const ttlMs = leaseMs * 5;
  const { bodies, times } = page;
  const staged = await options.store.restore.stage({ sessionId, firstSeq: seq, bodies, times, ttlMs });
  if (staged.status !== 'staged') {
    throw new RestoreAbortedError(`session ${sessionId}: the restore stage does not continue at ${seq}`);
  }
  await options.onStep?.('staged');
  await renewOrAbort(options, leaseMs);
}

/** Stages the archived events below the hot log's first seq; their bytes. */
async function stageArchive(options: RestoreRunOptions, plan: Plan, leaseMs: number): Promise<number> {
  const { archive, sessionId } = options;
  let bytes = 0;
  for (let seq = plan.cold.startSeq; seq < plan.hotFirst;) {
    const limit = Math.min(options.pageEvents ?? 2000, plan.hotFirst - seq);
    const page = await archive.read(sessionId, seq, limit, options.pageBytes ?? 4 << 20);
    if (page.epoch !== plan.cold.epoch || page.firstSeq !== seq || page.bodies.length === 0) {
      throw new RestoreAbortedError(`session ${sessionId}: the archive changed at seq ${seq}`);
    }
    await stagePage(
      options,
      seq,
      { epoch: page.epoch, firstSeq: seq, bodies: page.bodies, times: page.times },
      leaseMs,
    );
    bytes += page.bodies.reduce((sum, body) => sum + body.byteLength, 0);
    seq += page.bodies.length;
  }
  return bytes;
}

/** Stages a copy of the hot events `from` .. `to` − 1 (in the plan's epoch, else the run aborts). */
async function stageHot(options: RestoreRunOptions, epoch: string, from: number, to: number, leaseMs: number) {
  const { store, sessionId } = options;
  for (let seq = from; seq < to;) {
    const limit = Math.min(options.pageEvents ?? 2000, to - seq);
    const page = await store.readStoredPage(sessionId, seq, limit, options.pageBytes ?? 4 << 20);
    if (page.epoch !== epoch || page.firstSeq !== seq || page.bodies.length === 0) {
      throw new RestoreAbortedError(`session ${sessionId}: the hot log changed at seq ${seq}`);
    }
    await stagePage(options, seq, page, leaseMs);
    seq += page.bodies.length;
  }
}

/** Swaps the stage in, staging what was appended meanwhile when it is more than one swap copies; events it copied. */
async function swapIn(options: RestoreRunOptions, plan: Plan, leaseMs: number): Promise<number> {
  const { store, sessionId } = options;
  let staged = 0;
  for (let attempt = 1; attempt <= MAX_SWAPS; attempt++) {
    const swap = await store.restore.swap({ sessionId, epoch: plan.epoch, maxCopy: SWAP_COPY });
    if (swap.status === 'swapped') return staged + swap.copied;
    if (swap.status !== 'behind') throw new RestoreAbortedError(`session ${sessionId}: swap ${swap.status}`);
    await stageHot(options, plan.epoch, swap.stagedNext, swap.headSeq + 1, leaseMs);
    staged += swap.headSeq + 1 - swap.stagedNext;
  }
  throw new RestoreAbortedError(`session ${sessionId}: appends kept outrunning the restore (${MAX_SWAPS} swaps)`);
}

/** Reads the archived range back from the hot log and compares it with the archive; aborts on any difference. */
async function verifyRestored(options: RestoreRunOptions, plan: Plan): Promise<void> {
  const { store, archive, sessionId } = options;
  const { cold } = plan;
  for (let seq = cold.startSeq; seq < cold.nextSeq;) {
    const limit = Math.min(options.pageEvents ?? 2000, cold.nextSeq - seq);
    const hot = await store.readStoredPage(sessionId, seq, limit, options.pageBytes ?? 4 << 20);
    if (hot.epoch !== plan.epoch || hot.firstSeq !== seq || hot.bodies.length === 0) {
      throw new RestoreAbortedError(`session ${sessionId}: the hot log changed at seq ${seq}`);
    }
    const differs = await firstDifference(archive, sessionId, cold.epoch, hot);
    if (differs !== undefined) {
      throw new RestoreAbortedError(`session ${sessionId}: the hot log differs from the archive at ${differs}`);
    }
    seq += hot.bodies.length;
  }
}
