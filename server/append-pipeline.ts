import {
  normalizeDraft,
  HubErrorCode,
  type EventDraft,
  type SessionEvent,
  type ValidatedDraft,
} from '../shared/index.ts';
import { assertDraftSizes } from './auth/event-size.ts';
import type { HubLimits } from './config.ts';
import { HubError } from './hub-error.ts';
import type { Logger } from './logger.ts';
import type { HubMetrics } from './metrics.ts';
import type { CachedSession, SessionCache } from './session-cache.ts';
import type { CommitResult, EventStore } from './store/event-store.ts';

export interface AppendInput {
  readonly sessionId: string;
  readonly events: readonly EventDraft[];
  readonly expectedSeq?: number | undefined;
  readonly idempotencyKey?: string | undefined;
}

/** What an ack reports. `events` is set when this call committed them (not on a duplicate). */
export interface AppendOutcome {
  readonly sessionId: string;
  readonly epoch: string;
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly time: number;
  readonly duplicate: boolean;
  readonly events: readonly SessionEvent[] | undefined;
}

export interface AppendPipelineDeps {
  readonly store: EventStore;
  readonly cache: SessionCache;
  readonly limits: HubLimits;
  readonly retries: number;
  readonly logger: Logger;
  readonly metrics: HubMetrics;
}

const textEncoder = new TextEncoder();

/**
 * Full-jitter pause before retrying after another node won the race for the head: without it two nodes that keep
 * colliding retry in lock-step and one can starve (seen under CPU load). Grows to at most 64 ms.
 */
function conflictBackoff(attempt: number): Promise<void> {
  const ceilingMs = Math.min(64, 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceilingMs));
}

/**
 * Appends, one at a time per session on this node (a promise chain per session, so the node never conflicts with
 * itself): validate the batch with the shared core against the cached session, commit with
 * `expectedSeq = length` and `expectedEpoch` = the epoch the session was built from, and on a conflict (another
 * node appended, or the session was deleted and rewritten) refresh from the store, re-validate and retry
 * (bounded). A client `expectedSeq` that does not match the head is a SEQ_CONFLICT. Nothing is written unless the
 * whole batch is valid.
 */
export class AppendPipeline {
  readonly #tails = new Map<string, Promise<void>>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #deps: AppendPipelineDeps;
  #closing = false;

  constructor(deps: AppendPipelineDeps) {
    this.#deps = deps;
  }

  /**
   * Queue an append behind the session's earlier ones. `ready` (e.g. the caller's authorization) is awaited in
   * the queue, so the order of calls is the commit order even when `ready` settles out of order; when it
   * rejects, the append fails with its error and nothing is written.
   */
  append(input: AppendInput, ready: Promise<void> = Promise.resolve()): Promise<AppendOutcome> {
    ready.catch(() => undefined); // surfaced through the returned promise
    if (this.#closing) return Promise.reject(new HubError(HubErrorCode.SHUTTING_DOWN, 'the hub is shutting down'));
    const { maxEventsPerAppend } = this.#deps.limits;
    if (input.events.length > maxEventsPerAppend) {
      const details = { events: input.events.length, limit: maxEventsPerAppend };
      const message = `an append may hold at most ${maxEventsPerAppend} events`;
      return Promise.reject(new HubError(HubErrorCode.BATCH_TOO_LARGE, message, details));
    }
    try {
      assertDraftSizes(input.events, this.#deps.limits);
    } catch (error) {
      return Promise.reject(error);
    }
    const previous = this.#tails.get(input.sessionId) ?? Promise.resolve();
    const run = previous.then(async () => {
      await ready;
      return this.#run(input);
    });
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(input.sessionId, settled);
    this.#inFlight.add(settled);
    void settled.then(() => {
      this.#inFlight.delete(settled);
      if (this.#tails.get(input.sessionId) === settled) this.#tails.delete(input.sessionId);
    });
    return run;
  }

  /** Refuse new appends and wait for the ones in flight. */
  async drain(): Promise<void> {
    this.#closing = true;
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  async #run(input: AppendInput): Promise<AppendOutcome> {
    const { cache } = this.#deps;
    const entry = await cache.acquire(input.sessionId);
    try {
      return await this.#attempt(input, entry);
    } finally {
      cache.release(entry);
    }
  }

  async #attempt(input: AppendInput, entry: CachedSession): Promise<AppendOutcome> {
    const { store, cache, retries, metrics } = this.#deps;
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      const nextSeq = entry.session.length;
      if (input.expectedSeq !== undefined && input.expectedSeq !== nextSeq) {
        if (!refreshed) {
          await cache.refresh(entry);
          refreshed = true;
          continue;
        }
        const duplicate = await this.#probeDuplicate(input);
        if (duplicate !== undefined) return duplicate;
        throw seqConflict(`expectedSeq ${input.expectedSeq} does not match the head + 1 (${nextSeq})`, nextSeq - 1);
      }
      let validated: readonly ValidatedDraft[];
      try {
        validated = entry.session.check(input.events);
      } catch (error) {
        const duplicate = await this.#probeDuplicate(input);
        if (duplicate !== undefined) return duplicate;
        throw error;
      }
      this.#checkEventSizes(validated);
      const result = await store.commit({
        sessionId: input.sessionId,
        expectedSeq: nextSeq,
        expectedEpoch: entry.epoch,
        events: validated,
        ...(input.idempotencyKey === undefined ? {} : { idempotencyKey: input.idempotencyKey }),
      });
      if (result.status === 'conflict') {
        if (result.epoch !== entry.epoch) {
          // The session was deleted (and maybe rewritten) since the entry was built: validate again on the new log.
          if (attempt >= retries) throw seqConflict(`gave up after ${retries} conflicting retries`, result.headSeq);
          await cache.refresh(entry, result.epoch);
          refreshed = true;
          continue;
        }
        if (input.expectedSeq !== undefined) {
          throw seqConflict(`expectedSeq ${input.expectedSeq} does not match the head`, result.headSeq);
        }
        if (attempt >= retries) throw seqConflict(`gave up after ${retries} conflicting retries`, result.headSeq);
        metrics.appendRetries.inc();
        await conflictBackoff(attempt);
        await cache.refresh(entry, result.epoch);
        refreshed = true;
        continue;
      }
      return this.#outcome(input, entry, result);
    }
  }

  #outcome(input: AppendInput, entry: CachedSession, result: Exclude<CommitResult, { status: 'conflict' }>) {
    const { sessionId } = input;
    switch (result.status) {
      case 'committed': {
        const { events, epoch } = result;
        this.#deps.cache.applyOwnCommit(entry, epoch, events);
        const firstSeq = events[0]!.seq;
        const lastSeq = events[events.length - 1]!.seq;
        const time = events[0]!.time;
        return { sessionId, epoch, firstSeq, lastSeq, time, duplicate: false, events };
      }
      case 'duplicate':
        return duplicateOutcome(sessionId, result);
      case 'idempotency-mismatch':
        throw idempotencyMismatch(result);
    }
  }

  /**
   * A retried append whose idempotency key already committed may no longer validate (or match `expectedSeq`) at
   * the current head. Ask the store with an `expectedSeq` that can never commit: it answers `duplicate` (with the
   * original seqs) when the key is known, else `conflict`.
   */
  async #probeDuplicate(input: AppendInput): Promise<AppendOutcome | undefined> {
    if (input.idempotencyKey === undefined) return undefined;
    let drafts: ValidatedDraft[];
    try {
      drafts = input.events.map(normalizeDraft);
    } catch {
      return undefined;
    }
    const result = await this.#deps.store.commit({
      sessionId: input.sessionId,
      expectedSeq: Number.MAX_SAFE_INTEGER,
      events: drafts,
      idempotencyKey: input.idempotencyKey,
    });
    switch (result.status) {
      case 'duplicate':
        return duplicateOutcome(input.sessionId, result);
      case 'conflict':
        return undefined;
      case 'committed':
        throw new HubError(HubErrorCode.INTERNAL, 'the store committed a probe at an impossible seq');
      case 'idempotency-mismatch':
        throw idempotencyMismatch(result);
    }
  }

  #checkEventSizes(events: readonly ValidatedDraft[]): void {
    const limit = this.#deps.limits.maxEventBytes;
    events.forEach((event, index) => {
      const json = JSON.stringify(event);
      // UTF-8 is at most 3 bytes per UTF-16 unit: only measure exactly when it could matter.
      if (json.length * 3 <= limit) return;
      const bytes = textEncoder.encode(json).byteLength;
      if (bytes > limit) {
        throw new HubError(HubErrorCode.EVENT_TOO_LARGE, `events[${index}] is ${bytes} bytes, above ${limit}`, {
          index,
          bytes,
          limit,
        });
      }
    });
  }
}

function seqConflict(message: string, headSeq: number): HubError {
  return new HubError(HubErrorCode.SEQ_CONFLICT, message, { headSeq });
}

function duplicateOutcome(sessionId: string, result: Extract<CommitResult, { status: 'duplicate' }>): AppendOutcome {
  const { epoch, firstSeq, lastSeq, time } = result;
  return { sessionId, epoch, firstSeq, lastSeq, time, duplicate: true, events: undefined };
}

function idempotencyMismatch(result: { readonly firstSeq: number; readonly lastSeq: number }): HubError {
  return new HubError(HubErrorCode.IDEMPOTENCY_MISMATCH, 'this idempotency key was used for a different batch', {
    firstSeq: result.firstSeq,
    lastSeq: result.lastSeq,
  });
}
