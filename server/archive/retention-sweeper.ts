import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.ts';
import type { EventStore } from '../store/event-store.ts';
import type { RetentionMetrics } from './retention-metrics.ts';
import {
  DEFAULT_EXPIRED_TTL_MS,
  DEFAULT_SWEEP_BATCH,
  DEFAULT_SWEEP_INTERVAL_MS,
  RetentionPolicy,
  RetentionRuleError,
  type RetentionConfig,
} from './retention-rules.ts';

/** What one sweep did. */
export type SweepOutcome =
  | {
      readonly status: 'done';
      /** Sessions the walk returned (an id may count twice, as SCAN may return it twice). */
      readonly examined: number;
      readonly expired: number;
      /** Sessions that could not be expired (store errors); the next sweep tries them again. */
      readonly errors: number;
      /** False when the sweep stopped early (the node is closing, or it lost the lease). */
      readonly complete: boolean;
    }
  /** Another node holds the sweep lease: nothing done. */
  | { readonly status: 'leased' }
  /** A step of the walk failed (the store is down): the next sweep starts over. */
  | { readonly status: 'failed'; readonly error: unknown };

export interface RetentionSweeperOptions {
  readonly store: EventStore;
  readonly config: RetentionConfig | undefined;
  readonly nodeName: string;
  readonly logger: Logger;
  readonly metrics: RetentionMetrics;
}

/** Expires run at once per batch of the walk (each is one store call). */
const EXPIRE_CONCURRENCY = 8;
/** The sweep lease lasts at least this long (a node that dies mid-sweep holds it until it lapses). */
const MIN_LEASE_MS = 30_000;

/**
 * The hub's retention service: every `sweepIntervalMs` it walks the store's sessions in bounded steps and expires
 * those idle past their rule (`RetentionPolicy`), under the store's sweep lease so that one node sweeps at a time
 * (the lease is held for the interval after a sweep: the nodes together sweep about once per interval). Each expiry
 * is conditional in the store (`idleSince`): a session written to after the walk looked at it is kept.
 */
export class RetentionSweeper {
  readonly policy: RetentionPolicy;
  readonly #options: RetentionSweeperOptions;
  readonly #owner: string;
  readonly #clock: () => number;
  readonly #intervalMs: number;
  readonly #expiredTtlMs: number;
  readonly #batch: number;
  readonly #leaseMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<SweepOutcome> | undefined;
  #closed = false;
  #holdsLease = false;
  /** A session's expiry failed in this sweep and was logged (one line per sweep; the metric counts them all). */
  #errorLogged = false;

  constructor(options: RetentionSweeperOptions) {
    const config = options.config ?? {};
    this.#options = options;
    this.policy = new RetentionPolicy(config.retainForMs, config.rules);
    this.#owner = `${options.nodeName}:${randomUUID()}`;
    this.#clock = config.clock ?? Date.now;
    this.#intervalMs = positive('sweepIntervalMs', config.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS);
    this.#expiredTtlMs = positive('expiredTtlMs', config.expiredTtlMs ?? DEFAULT_EXPIRED_TTL_MS);
    this.#batch = positive('sweepBatch', config.sweepBatch ?? DEFAULT_SWEEP_BATCH);
    this.#leaseMs = Math.max(this.#intervalMs, MIN_LEASE_MS);
  }

  /** Sweep every interval from now on (the first one an interval from now); nothing when no rule can expire. */
  start(): void {
    if (!this.policy.active || this.#closed || this.#timer !== undefined) return;
    this.#schedule();
  }

  /** One sweep now (or the one running). Never rejects: failures are in the outcome, the metrics and the log. */
  sweepOnce(): Promise<SweepOutcome> {
    this.#running ??= this.#sweep().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** Stop sweeping: the running sweep stops after its current step; the lease is given back. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
    if (!this.#holdsLease) return;
    this.#holdsLease = false;
    await this.#options.store.retention.release(this.#owner).catch((error: unknown) => {
      this.#options.logger.warn({ err: error }, 'retention: could not give the sweep lease back');
    });
  }

  #schedule(): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.sweepOnce().then(() => {
        if (!this.#closed) this.#schedule();
      });
    }, this.#intervalMs);
    this.#timer.unref();
  }

  async #sweep(): Promise<SweepOutcome> {
    const { store, metrics, logger } = this.#options;
    const retention = store.retention;
    let examined = 0;
    let expired = 0;
    let errors = 0;
    let cursor = '';
    this.#errorLogged = false;
    try {
      if (this.#closed || !this.policy.active) return this.#done(examined, expired, errors, false);
      do {
        // Taken (or extended) before each step: a node that lost it mid-sweep stops.
        const held = await retention.lease(this.#owner, this.#leaseMs);
        this.#holdsLease = held;
        if (!held) {
          if (examined > 0) return this.#done(examined, expired, errors, false);
          metrics.sweeps.inc({ result: 'leased' });
          return { status: 'leased' };
        }
        const page = await retention.scan(cursor, this.#batch);
        cursor = page.cursor;
        examined += page.sessionIds.length;
        const now = this.#clock();
        for (let start = 0; start < page.sessionIds.length; start += EXPIRE_CONCURRENCY) {
          const chunk = page.sessionIds.slice(start, start + EXPIRE_CONCURRENCY);
          const results = await Promise.all(chunk.map((sessionId) => this.#expireIfIdle(sessionId, now)));
          for (const result of results) {
            if (result === 'expired') expired++;
            else if (result === 'error') errors++;
          }
        }
        if (this.#closed) return this.#done(examined, expired, errors, false);
      } while (cursor !== '');
      return this.#done(examined, expired, errors, true);
    } catch (error) {
      metrics.sweepErrors.inc();
      metrics.sweeps.inc({ result: 'failed' });
      logger.warn({ err: error, examined, expired }, 'retention sweep failed; the next one starts over');
      return { status: 'failed', error };
    }
  }

  /** Expire `sessionId` if its rule says so and it is still idle; never throws. */
  async #expireIfIdle(sessionId: string, now: number): Promise<'expired' | 'kept' | 'error'> {
    const retainMs = this.policy.retainMsOf(sessionId);
    if (retainMs === undefined) return 'kept';
    const { store, metrics, logger } = this.#options;
    const onExpired = this.#options.config?.onExpired;
    let result;
    try {
      result = await store.retention.expire(sessionId, {
        idleSince: now - retainMs,
        expiredAt: now,
        tombstoneTtlMs: this.#expiredTtlMs,
      });
    } catch (error) {
      metrics.sweepErrors.inc();
      if (!this.#errorLogged) logger.warn({ err: error, sessionId }, 'retention: a session could not be expired');
      this.#errorLogged = true;
      return 'error';
    }
    if (result.status !== 'expired') return 'kept';
    metrics.expiredSessions.inc();
    const { headSeq, lastActivity } = result;
    logger.info({ sessionId, headSeq, lastActivity, retainMs }, 'session expired (retention)');
    if (onExpired === undefined) return 'expired';
    try {
      await onExpired(sessionId);
    } catch (error) {
      metrics.sweepErrors.inc();
      logger.warn({ err: error, sessionId }, 'retention: cleaning up after an expired session failed');
    }
    return 'expired';
  }

  #done(examined: number, expired: number, errors: number, complete: boolean): SweepOutcome {
    const { metrics, logger } = this.#options;
    metrics.sweeps.inc({ result: 'done' });
    metrics.lastSweep.set(Date.now() / 1000);
    if (expired > 0 || errors > 0 || !complete) {
      logger.info({ examined, expired, errors, complete }, 'retention sweep done');
    }
    return { status: 'done', examined, expired, errors, complete };
  }
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RetentionRuleError(`retention ${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}
