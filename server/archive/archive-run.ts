import { LifecycleTracker } from '../../shared/lifecycle-tracker.ts';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { decodeStoredEvent } from '../store/codec/stored-events.ts';
import { NO_EPOCH, type EventStore, type StoredPage } from '../store/event-store.ts';
import type { ArchiveBackend } from './archive-backend.ts';
import { firstDifference } from './archive-compare.ts';
import { pruneIdempotencyWindow, type IdempotencyPruneWalk } from '../store/idempotency-prune.ts';

/** The steps of a run, in order, as `ArchiveRunOptions.onStep` names them (fault tests stop a run at each). */
export type ArchiveStep = 'leased' | 'planned' | 'appended' | 'verified' | 'trimmed';

export interface ArchiveRunOptions {
  /** The HOT store (not a `TieredStore`): the run reads the log's hot part and trims it. */
  readonly store: EventStore;
  readonly archive: ArchiveBackend;
  readonly sessionId: string;
  /** This run's lease token (a node name and a random part): one run per session across nodes. */
  readonly token: string;
  /** How long the lease lasts without renewal (renewed after each segment). Default 60 s. */
  readonly leaseMs?: number;
  /** Most events per segment (one hot page read, one archive append). Default 2000. */
  readonly segmentEvents?: number;
  /** Most body bytes per segment. Default 4 MiB. */
  readonly segmentBytes?: number;
  /** Archive nothing at or after this seq (the hot part to keep: e.g. head + 1 − the events Redis should keep). */
  readonly before?: number;
  /**
   * The idempotency window (docs/operations.md#the-idempotency-window): after the trim, the run drops the keys of
   * the trimmed events committed more than this long ago (`EventStore.pruneIdempotencyKeys`). Default: keep them.
   */
  readonly idempotencyWindowMs?: number;
  /** The clock of the window (epoch ms). Default `Date.now`. */
  readonly now?: () => number;
  /** Called after each step (once per segment for `appended`); awaited. */
  readonly onStep?: (step: ArchiveStep) => void | Promise<void>;
}

/**
 * What a run did. `archived`: the hot log now starts at `cut` (its events below are in the archive, verified);
 * `appended` events were written to the archive by this run, `trimmed` removed from the hot log. `busy`: another run
 * holds the session's lease. `idle`: nothing to archive (no epoch, or no turn boundary past the hot log's start).
 * `gap`: the hot log was trimmed past the archive's end (by hand, or retention): the run cannot archive it.
 */
export type ArchiveRunResult =
  | {
      readonly status: 'archived';
      readonly epoch: string;
      readonly cut: number;
      readonly appended: number;
      readonly trimmed: number;
      /** What the idempotency window dropped after the trim (and the latest time it kept); absent without one. */
      readonly keys?: IdempotencyPruneWalk;
    }
  | { readonly status: 'busy' | 'idle' | 'gap' };

/** A run stopped because the hot log changed under it (deleted, rewritten, trimmed by another): nothing trimmed. */
export class ArchiveRunAbortedError extends Error {
  override readonly name = 'ArchiveRunAbortedError';
  readonly code = 'ARCHIVE_ABORTED';
}

interface Plan {
  readonly epoch: string;
  /** First seq the hot log holds. */
  readonly hotFirst: number;
  /** First seq to write to the archive (its `nextSeq`, or `hotFirst` when it has nothing of this epoch). */
  readonly from: number;
  /** The new first seq of the hot log. */
  readonly cut: number;
}

/**
 * Archive then trim one session's hot prefix (docs/storage.md#the-archive): take the session's archive lease,
 * choose the cut, write the events from the archive's end to the cut as segments (each read back from the archive
 * and compared, byte for byte, with the hot page it was written from; what an earlier run archived is compared
 * with the hot log too), and only then trim the hot log below the cut. The cut is at most the head + 1 and `before`,
 * at most the latest snapshot's seq + 1 (the hot log keeps the snapshot's tail), and at a turn boundary (never
 * inside an open turn: the shared log core's `LifecycleTracker` over the events from the hot log's start, where the
 * previous run cut at a boundary). Idempotent: a run that died at any step leaves the archive with a prefix of the
 * events (or more), which the next run verifies and continues (the archive's append skips what it holds, identical).
 */
export async function archiveSession(options: ArchiveRunOptions): Promise<ArchiveRunResult> {
  const { store, sessionId, token } = options;
  const leaseMs = options.leaseMs ?? 60_000;
  if (!(await store.archiveLease.acquire(sessionId, token, leaseMs))) return { status: 'busy' };
  try {
    await options.onStep?.('leased');
    const plan = await planRun(options);
    if (plan === 'idle' || plan === 'gap') return { status: plan };
    await options.onStep?.('planned');
    const appended = await copySegments(options, plan, leaseMs);
    await verifyTiers(options, plan);
    await options.onStep?.('verified');
    await renewOrAbort(options, leaseMs);
    const trim = await store.trim({ sessionId, epoch: plan.epoch, beforeSeq: plan.cut });
    if (trim.status !== 'trimmed') throw new ArchiveRunAbortedError(`session ${sessionId}: trim ${trim.status}`);
    await options.onStep?.('trimmed');
    const window = options.idempotencyWindowMs;
    const keys =
      window === undefined
        ? undefined
        : await pruneIdempotencyWindow(store, sessionId, (options.now ?? Date.now)() - window);
    const archived = { status: 'archived', epoch: plan.epoch, cut: plan.cut, appended, trimmed: trim.removed } as const;
    return keys === undefined ? archived : { ...archived, keys };
  } finally {
    await store.archiveLease.release(sessionId, token).catch(() => false);
  }
}

async function renewOrAbort(options: ArchiveRunOptions, leaseMs: number): Promise<void> {
  if (!(await options.store.archiveLease.renew(options.sessionId, options.token, leaseMs))) {
    throw new ArchiveRunAbortedError(`session ${options.sessionId}: the archive lease lapsed during the run`);
  }
}

/** A hot page in the plan's epoch, starting at `fromSeq` (anything else aborts the run). */
async function hotPage(options: ArchiveRunOptions, epoch: string, fromSeq: number, limit: number): Promise<StoredPage> {
  const page = await options.store.readStoredPage(options.sessionId, fromSeq, limit, options.segmentBytes ?? 4 << 20);
  if (page.epoch !== epoch || page.firstSeq !== fromSeq || page.bodies.length === 0) {
    throw new ArchiveRunAbortedError(`session ${options.sessionId}: the hot log changed at seq ${fromSeq}`);
  }
  return page;
}

async function planRun(options: ArchiveRunOptions): Promise<Plan | 'idle' | 'gap'> {
  const { store, archive, sessionId } = options;
  const head = await store.head(sessionId);
  if (head.epoch === NO_EPOCH) return 'idle';
  const hotFirst = head.firstSeq ?? 0;
  let cold = await archive.describe(sessionId);
  if (cold !== undefined && cold.epoch !== head.epoch) {
    if ((await store.redactions.priorEpochs(sessionId, head.epoch)).includes(cold.epoch)) {
      // An epoch made by redactions from the archived one (which rewrote the archived seqs they named first): the
      // archive is the session's prefix; it moves to the hot epoch and grows on (what it holds of the hot log is
      // compared before any trim, as always).
      await archive.rewrite(sessionId, cold.epoch, new Map(), head.epoch);
      cold = { ...cold, epoch: head.epoch };
    } else {
      // The archive of a dead epoch (the session was deleted and written again): no reader can use it.
      await archive.delete(sessionId);
      cold = undefined;
    }
  }
  if (cold !== undefined && cold.nextSeq < hotFirst) return 'gap';
  let cap = Math.min(head.headSeq + 1, options.before ?? Number.MAX_SAFE_INTEGER);
  const snapshot = await store.snapshots.get(sessionId);
  if (snapshot.status === 'found' && snapshot.snapshot.epoch === head.epoch) {
    cap = Math.min(cap, snapshot.snapshot.seq + 1);
  }
  const cut = await lastTurnBoundary(options, head.epoch, hotFirst, cap);
  if (cut <= hotFirst) return 'idle';
  return { epoch: head.epoch, hotFirst, from: Math.max(hotFirst, cold?.nextSeq ?? hotFirst), cut };
}

/**
 * Events decoded between two yields to the event loop in the turn-boundary scan: decoding is the run's largest
 * piece of work on the node's thread (~2.5 µs an event), and a whole page of it at once (5 ms for 2,000 events)
 * would hold up the node's appends for as long (docs/performance.md, "Appends while the archiver runs").
 */
export const SCAN_EVENTS_PER_YIELD = 200;

/** The last seq in (`from`, `cap`] before which no turn is open (`from`: where the hot log starts, a boundary). */
async function lastTurnBoundary(options: ArchiveRunOptions, epoch: string, from: number, cap: number): Promise<number> {
  const tracker = new LifecycleTracker();
  let boundary = from;
  for (let seq = from; seq < cap;) {
    const page = await hotPage(options, epoch, seq, Math.min(options.segmentEvents ?? 2000, cap - seq));
    for (let index = 0; index < page.bodies.length; index++) {
      if (index > 0 && index % SCAN_EVENTS_PER_YIELD === 0) await yieldToLoop();
      const event = decodeStoredEvent(options.sessionId, seq + index, page.bodies[index]!, page.times[index]!);
      tracker.apply(event);
      if (tracker.openTurn === undefined) boundary = event.seq + 1;
    }
    seq += page.bodies.length;
  }
  return boundary;
}

/** Writes the hot events `from` .. `cut` − 1 to the archive, one segment per hot page; the events it wrote. */
async function copySegments(options: ArchiveRunOptions, plan: Plan, leaseMs: number): Promise<number> {
  const { archive, sessionId } = options;
  let written = 0;
  for (let seq = plan.from; seq < plan.cut;) {
    const page = await hotPage(options, plan.epoch, seq, Math.min(options.segmentEvents ?? 2000, plan.cut - seq));
    await archive.append({ sessionId, epoch: plan.epoch, firstSeq: seq, bodies: page.bodies, times: page.times });
    await verifyAgainst(options, plan, page); // read back what the archive now holds, against the page in hand
    seq += page.bodies.length;
    written += page.bodies.length;
    await options.onStep?.('appended');
    await renewOrAbort(options, leaseMs);
  }
  return written;
}

/** Reads the archive over `hot`'s seqs and compares seqs, times and bytes with it; aborts on any difference. */
async function verifyAgainst(options: ArchiveRunOptions, plan: Plan, hot: StoredPage): Promise<void> {
  const seq = await firstDifference(options.archive, options.sessionId, plan.epoch, hot);
  if (seq !== undefined) {
    throw new ArchiveRunAbortedError(`session ${options.sessionId}: the archive differs from the hot log at ${seq}`);
  }
}

/**
 * Reads the hot events `hotFirst` .. `from` − 1 (archived by an earlier run that did not trim them: it died, or
 * stopped) and compares the archive with them; this run's own segments were compared as they were written.
 */
async function verifyTiers(options: ArchiveRunOptions, plan: Plan): Promise<void> {
  const end = Math.min(plan.from, plan.cut);
  for (let seq = plan.hotFirst; seq < end;) {
    const hot = await hotPage(options, plan.epoch, seq, Math.min(options.segmentEvents ?? 2000, end - seq));
    await verifyAgainst(options, plan, hot);
    seq += hot.bodies.length;
  }
}
