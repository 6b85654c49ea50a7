import { randomBytes } from 'node:crypto';
import type { Logger } from '../logger.ts';
import type { ArchiveCounts } from '../archive-metrics.ts';
import type { EventStore } from '../store/event-store.ts';
import type { SessionSummary } from '../store/metadata-store.ts';
import type { ArchiveBackend } from './archive-backend.ts';
import { archiveSession, type ArchiveRunResult } from './archive-run.ts';
import { pruneIdempotencyWindow, type IdempotencyPruneWalk } from '../store/idempotency-prune.ts';

/** When a session's hot prefix goes to the archive (`serve --archive-after`, `--hot-max-events`, `--hot-max-bytes`). */
export interface ArchivePolicy {
  /** A session with no commit for this long is archived whole (up to its last turn boundary). Default 1 h. */
  readonly archiveAfterMs: number;
  /** A session whose hot log holds more events is archived down to half of it. Default: no limit. */
  readonly hotMaxEvents?: number;
  /** A session whose hot log takes more bytes (the store's estimate) is archived down to about half. Default: none. */
  readonly hotMaxBytes?: number;
  /**
   * The idempotency window (`serve --idempotency-window`, docs/operations.md#the-idempotency-window): the keys of
   * archived appends committed longer ago than this are dropped from the hot store, after each trim and, for
   * sessions whose kept keys come of age later, on a later tick. Default: kept for the session's life.
   */
  readonly idempotencyWindowMs?: number;
}

export interface ArchiverOptions {
  /** The HOT store (not a `TieredStore`). */
  readonly store: EventStore;
  readonly archive: ArchiveBackend;
  readonly policy: ArchivePolicy;
  readonly logger: Logger;
  /** Where the counts go (`HubMetrics.archive`). */
  readonly counts: ArchiveCounts;
  /** This node's name (in the lease token: who archives which session). */
  readonly nodeName: string;
  /** Time between ticks. Default 10 s. */
  readonly tickMs?: number;
  /** Most sessions archived per tick (bounded work). Default 8. */
  readonly sessionsPerTick?: number;
  /** Most sessions whose summaries are read per tick. Default 256. */
  readonly summariesPerTick?: number;
  /** The clock (epoch ms). Default `Date.now`. */
  readonly now?: () => number;
}

/** What one tick did: sessions looked at, runs by result. */
export interface ArchiveTick {
  readonly looked: number;
  readonly runs: readonly { readonly sessionId: string; readonly status: ArchiveRunResult['status'] | 'error' }[];
}

/** A session's candidate run: archive below `before` (undefined: as far as the cut allows). */
interface Candidate {
  readonly sessionId: string;
  readonly before: number | undefined;
  /** How long past its archive time it is (ms; 0 for a size trigger). */
  readonly overdueMs: number;
  /** Whether it had an archived prefix already (counted in the pass's archived sessions). */
  readonly archived?: boolean;
  /** Its head when it was picked. */
  readonly headSeq?: number;
}

/**
 * The archive service of a node: every tick it reads the summaries of a bounded slice of the sessions (walking the
 * whole list over several ticks), picks those idle for `archiveAfterMs` or over `hotMaxEvents` / `hotMaxBytes`, and
 * archives at most `sessionsPerTick` of them (archive-run.ts: one run per session across nodes, by the lease). A
 * failure counts an error, trims nothing, and logs one line per outage (and one when runs succeed again).
 */
export class Archiver {
  readonly #options: ArchiverOptions;
  readonly #now: () => number;
  #queue: string[] = [];
  /**
   * Sessions a run found nothing to archive in (an open turn, a gap), with their head then: skipped until the head
   * moves, so that sessions stuck inside a turn do not take every tick's runs from the others. Bounded.
   */
  readonly #settled = new Map<string, number>();
  /**
   * The idempotency window's state of archived sessions: the head at their last prune walk and when the keys it
   * kept come of age (undefined: none kept). A session is walked again when its head moved or that time passed.
   * Bounded; forgetting one only costs an extra walk.
   */
  readonly #pruned = new Map<string, { readonly headSeq: number; readonly dueAt: number | undefined }>();
  /** This tick's archived sessions whose idempotency keys are due a walk. */
  #prunes: { readonly sessionId: string; readonly headSeq: number }[] = [];
  #pass = { hotEvents: 0, hotBytes: 0, archived: 0, lagMs: 0 };
  #failing = false;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<ArchiveTick> | undefined;
  #stopped = false;

  constructor(options: ArchiverOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Start ticking (the first tick after `tickMs`). */
  start(): void {
    if (this.#timer !== undefined || this.#stopped) return;
    this.#timer = setInterval(() => {
      if (this.#running === undefined) void this.tick();
    }, this.#options.tickMs ?? 10_000);
    this.#timer.unref();
  }

  /** Stop ticking; resolves once a tick in progress ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#running;
  }

  /** One tick now (also what the timer runs). Never rejects: failures are counted and logged. */
  tick(): Promise<ArchiveTick> {
    const running = (this.#running ??= this.#tick().finally(() => (this.#running = undefined)));
    return running;
  }

  /** Archives one session now, as far as the cut allows (admin: `session-hub archive <id>`). Rejects on failure. */
  async archiveNow(sessionId: string): Promise<ArchiveRunResult> {
    return this.#run({ sessionId, before: undefined, overdueMs: 0 });
  }

  async #tick(): Promise<ArchiveTick> {
    const runs: { sessionId: string; status: ArchiveRunResult['status'] | 'error' }[] = [];
    let looked = 0;
    try {
      const { store } = this.#options;
      if (this.#queue.length === 0) {
        this.#publishPass();
        this.#queue = await store.listSessions();
      }
      const slice = this.#queue.splice(0, this.#options.summariesPerTick ?? 256);
      looked = slice.length;
      const summaries = await store.metadata.summaries(slice);
      const candidates: Candidate[] = [];
      for (const summary of summaries) {
        if (summary === undefined) continue;
        const candidate = await this.#candidate(summary);
        if (candidate !== undefined) candidates.push(candidate);
      }
      candidates.sort((a, b) => b.overdueMs - a.overdueMs);
      for (const candidate of candidates.slice(0, this.#options.sessionsPerTick ?? 8)) {
        if (this.#stopped) break;
        const status = await this.#run(candidate).then(
          (result) => {
            if (result.status === 'idle' || result.status === 'gap') this.#settle(candidate);
            // The pass's totals as they are after the run.
            if (result.status !== 'archived') return result.status;
            this.#pass.hotEvents -= result.trimmed;
            if (candidate.archived !== true) this.#pass.archived++;
            return result.status;
          },
          () => 'error' as const,
        );
        runs.push({ sessionId: candidate.sessionId, status });
      }
      await this.#pruneKeys();
    } catch (error) {
      this.#failed(error, undefined);
    }
    return { looked, runs };
  }

  /** Counts the session into the pass's totals; the run it needs, if any. */
  async #candidate(summary: SessionSummary): Promise<Candidate | undefined> {
    const { policy, store } = this.#options;
    const { sessionId } = summary;
    const head = await store.head(sessionId);
    const firstSeq = head.firstSeq ?? 0;
    const hotEvents = head.headSeq + 1 - firstSeq;
    this.#pass.hotEvents += hotEvents;
    this.#pass.hotBytes += summary.bytes;
    if (firstSeq > 0) this.#pass.archived++;
    if (firstSeq > 0) this.#duePrune(sessionId, head.headSeq);
    if (hotEvents === 0 || summary.lastActivity === undefined) return undefined;
    if (this.#settled.get(sessionId) === head.headSeq) return undefined;
    const overdueMs = this.#now() - summary.lastActivity - policy.archiveAfterMs;
    if (overdueMs >= 0) {
      this.#pass.lagMs = Math.max(this.#pass.lagMs, overdueMs);
      return { sessionId, before: undefined, overdueMs, archived: firstSeq > 0, headSeq: head.headSeq };
    }
    if (policy.hotMaxEvents !== undefined && hotEvents > policy.hotMaxEvents) {
      const before = head.headSeq + 1 - Math.floor(policy.hotMaxEvents / 2);
      return { sessionId, before, overdueMs: 0, archived: firstSeq > 0, headSeq: head.headSeq };
    }
    if (policy.hotMaxBytes !== undefined && summary.bytes > policy.hotMaxBytes) {
      const keep = Math.max(1, Math.floor((hotEvents * policy.hotMaxBytes) / 2 / summary.bytes));
      return {
        sessionId,
        before: head.headSeq + 1 - keep,
        overdueMs: 0,
        archived: firstSeq > 0,
        headSeq: head.headSeq,
      };
    }
    return undefined;
  }

  /** Queues the session's idempotency keys for a walk in this tick when the window says it is due. */
  #duePrune(sessionId: string, headSeq: number): void {
    if (this.#options.policy.idempotencyWindowMs !== undefined && this.#pruneDue(sessionId, headSeq)) {
      this.#prunes.push({ sessionId, headSeq });
    }
  }

  /** Whether the session's head moved since its last walk, or the keys that walk kept came of age. */
  #pruneDue(sessionId: string, headSeq: number): boolean {
    const last = this.#pruned.get(sessionId);
    return last?.headSeq !== headSeq || (last.dueAt !== undefined && last.dueAt <= this.#now());
  }

  /** Walks the idempotency keys of (at most `sessionsPerTick` of) the sessions `#duePrune` queued. */
  async #pruneKeys(): Promise<void> {
    const window = this.#options.policy.idempotencyWindowMs;
    const due = this.#prunes.splice(0).slice(0, this.#options.sessionsPerTick ?? 8);
    if (window === undefined) return;
    for (const { sessionId, headSeq } of due) {
      if (this.#stopped) break;
      if (!this.#pruneDue(sessionId, headSeq)) continue; // a run of this tick walked them
      const walk = await pruneIdempotencyWindow(this.#options.store, sessionId, this.#now() - window);
      this.#prunedAt(sessionId, headSeq, walk);
    }
  }

  #prunedAt(sessionId: string, headSeq: number, walk: IdempotencyPruneWalk): void {
    const window = this.#options.policy.idempotencyWindowMs ?? 0;
    if (this.#pruned.size >= 100_000) this.#pruned.clear();
    const dueAt = walk.youngestKept === 0 ? undefined : walk.youngestKept + window;
    this.#pruned.set(sessionId, { headSeq, dueAt });
  }

  #settle(candidate: Candidate): void {
    if (candidate.headSeq === undefined) return;
    if (this.#settled.size >= 100_000) this.#settled.clear();
    this.#settled.set(candidate.sessionId, candidate.headSeq);
  }

  /** The last pass's totals to the counts; a new pass starts. */
  #publishPass(): void {
    const { counts } = this.#options;
    counts.hotEvents = this.#pass.hotEvents;
    counts.hotBytes = this.#pass.hotBytes;
    counts.archivedSessions = this.#pass.archived;
    counts.lagSeconds = this.#pass.lagMs / 1000;
    this.#pass = { hotEvents: 0, hotBytes: 0, archived: 0, lagMs: 0 };
  }

  async #run(candidate: Candidate): Promise<ArchiveRunResult> {
    const { store, archive, counts, nodeName, logger, policy } = this.#options;
    const { sessionId, before } = candidate;
    const window = policy.idempotencyWindowMs;
    try {
      const result = await archiveSession({
        store,
        archive,
        sessionId,
        token: `${nodeName}:${randomBytes(6).toString('hex')}`,
        ...(before === undefined ? {} : { before }),
        ...(window === undefined ? {} : { idempotencyWindowMs: window, now: this.#now }),
      });
      if (result.status === 'archived') {
        counts.runs++;
        counts.eventsArchived += result.appended;
        if (result.keys !== undefined && candidate.headSeq !== undefined) {
          this.#prunedAt(sessionId, candidate.headSeq, result.keys);
        }
      }
      if (result.status === 'gap') logger.warn({ sessionId }, 'archive: the hot log was trimmed past the archive');
      if (this.#failing && result.status === 'archived') {
        this.#failing = false;
        logger.info('archive: runs succeed again');
      }
      return result;
    } catch (error) {
      this.#failed(error, sessionId);
      throw error;
    }
  }

  /** One error more; one log line per outage. */
  #failed(error: unknown, sessionId: string | undefined): void {
    this.#options.counts.errors++;
    if (this.#failing) return;
    this.#failing = true;
    this.#options.logger.error({ err: error, sessionId }, 'archive: a run failed; nothing was trimmed (retried later)');
  }
}
