import { normalizeDraft, type EventDraft, type ValidatedDraft } from '../../shared/index.ts';
import { HubErrorCode } from '../../shared/protocol.ts';
import { backoffDelay, type BackoffOptions } from '../../shared/backoff.ts';
import { assertDraftSizes } from '../limits/event-size.ts';
import type { HubLimits } from '../limits/limits.ts';
import { HubError } from '../hub-error.ts';
import { committedOutcome, duplicateOutcome, idempotencyMismatch, seqConflict, type AppendOutcome } from './outcome.ts';
import type { Logger } from '../logger.ts';
import type { HubMetrics } from '../metrics.ts';
import type { CachedSession, SessionCache } from './session-cache.ts';
import {
  ownEvents,
  planGroup,
  storeBatches,
  type AppendTrailer,
  type GroupLimits,
  type GroupPlan,
  type PlannedAppend,
} from './group.ts';
import { ownedIdempotencyKey } from './owned-key.ts';
import {
  StoreUnavailableError,
  type CommittedBatch,
  type EventStore,
  type GroupCommitRequest,
  type GroupCommitResult,
} from '../store/event-store.ts';

export interface AppendInput {
  readonly sessionId: string;
  readonly events: readonly EventDraft[];
  readonly expectedSeq?: number | undefined;
  readonly idempotencyKey?: string | undefined;
  /**
   * Who sent the append (the token subject): its idempotency key is stored bound to it (`ownedIdempotencyKey`),
   * so the same key from another principal is another key.
   */
  readonly keyOwner: string;
  /** Import mode (the caller checked the `admin` right): the commit time to store instead of the store's clock. */
  readonly time?: number | undefined;
  /** Server-side only: an event committed behind the append's, in the same commit (see `PlannedAppend`). */
  readonly trailer?: AppendTrailer | undefined;
}

export type { AppendOutcome } from './outcome.ts';

export interface AppendPipelineDeps {
  readonly store: EventStore;
  readonly cache: SessionCache;
  readonly limits: HubLimits;
  readonly retries: number;
  readonly logger: Logger;
  readonly metrics: HubMetrics;
  /** Local fan-out of this node's own commits (see `LocalCommitObserver`). Default: none. */
  readonly localCommits?: LocalCommitObserver | undefined;
  /** A commit made the session (its seq 0): who sent the first append (`keyOwner`) and the commit time. */
  readonly onSessionCreated?: ((sessionId: string, createdBy: string, createdAt: number) => void) | undefined;
}

/**
 * The one path by which this node's own commits reach its local subscribers. For each commit of a session the
 * pipeline calls `started`, then exactly once `finished`: at once when nothing was committed, and after the acks
 * were sent (`afterAcks`) with the committed batch otherwise. In between, the observer holds back the store's
 * notifications of the session (the echo of this commit can arrive before the commit's own reply), so that the
 * writer's ack goes out before the local fan-out and nothing is delivered out of order.
 */
export interface LocalCommitObserver {
  started(sessionId: string): void;
  /** `bytes`: the committed events' size (their JSON size, as measured against the limits). */
  finished(sessionId: string, batch: CommittedBatch | undefined, bytes?: number): void;
}

/**
 * Pause before retrying after another node won the race for the head: without jitter two nodes that keep colliding
 * retry in lock-step and one can starve (seen under CPU load). Up to 1 ms for the first, growing to 64 ms.
 */
const CONFLICT_BACKOFF: BackoffOptions = { initialDelayMs: 1, maxDelayMs: 64, factor: 2 };

function conflictBackoff(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, backoffDelay(attempt, CONFLICT_BACKOFF)));
}

/**
 * Run `task` once the acks just resolved are written: the connections send them from promise continuations (this
 * microtask drain) into corked sockets that a `setImmediate` uncorks, so a `nextTick` (after the drain) that queues
 * a `setImmediate` runs behind those uncorks. A writer's ack thus never waits for the local fan-out of its events
 * (1,000 subscribers are ~10 ms of frame writes), and the fan-out still runs in the same loop iteration.
 */
function afterAcks(task: () => void): void {
  process.nextTick(() => setImmediate(task));
}

/** A group the planner chose to commit. */
type GroupCommitPlan = Extract<GroupPlan<QueuedAppend>, { readonly kind: 'group' }>;

/** One append waiting in its session's queue. */
interface QueuedAppend extends PlannedAppend {
  readonly input: AppendInput;
  readonly whenReady: Promise<void>;
  ready: boolean;
  readyError: unknown;
  /** The cache was refreshed for it: a second `expectedSeq` mismatch or validation failure is final. */
  refreshed: boolean;
  /** Conflicting commits it took part in. */
  conflicts: number;
  readonly resolve: (outcome: AppendOutcome) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Appends, in call order per session, with group commit. Each session has a queue on this node and at most one
 * commit in flight (so the node never conflicts with itself); while it is in flight, later appends queue up, and
 * the next commit takes as many of them as validate in order (`planGroup`): one store round trip, one
 * notification and one frame per subscriber for the whole group, one ack per append. Validation is the shared
 * core's, against the cached validation state; the commit carries `expectedSeq` = the session's length and
 * `expectedEpoch` = the epoch the session was built from. On a conflict (another node appended, or the session
 * was deleted and rewritten) the node refreshes from the store, re-validates and retries (bounded, full-jitter
 * backoff). A client `expectedSeq` that does not match the head is a SEQ_CONFLICT, and an append that fails
 * validation is refused only once it failed against a copy just refreshed from the store (a node's copy may lag). Nothing of an append is
 * written unless all of it is valid; an invalid append fails alone and the ones behind it go on.
 */
export class AppendPipeline {
  readonly #queues = new Map<string, QueuedAppend[]>();
  readonly #running = new Set<Promise<void>>();
  readonly #deps: AppendPipelineDeps;
  readonly #groupLimits: GroupLimits;
  #closing = false;

  constructor(deps: AppendPipelineDeps) {
    this.#deps = deps;
    const { maxEventsPerAppend, maxFrameBytes } = deps.limits;
    this.#groupLimits = { maxEvents: maxEventsPerAppend, maxBytes: maxFrameBytes };
  }

  /**
   * Queue an append behind the session's earlier ones. `ready` (e.g. the caller's authorization) must resolve
   * before the append may commit; the order of calls is the commit order even when `ready` settles out of order;
   * when it rejects, the append fails with its error and nothing is written.
   */
  append(request: AppendInput, ready: Promise<void> = Promise.resolve()): Promise<AppendOutcome> {
    ready.catch(() => undefined); // surfaced through the returned promise
    const { idempotencyKey, keyOwner } = request;
    const input =
      idempotencyKey === undefined
        ? request
        : { ...request, idempotencyKey: ownedIdempotencyKey(keyOwner, idempotencyKey) };
    if (this.#closing) return Promise.reject(new HubError(HubErrorCode.SHUTTING_DOWN, 'the hub is shutting down'));
    const { maxEventsPerAppend } = this.#deps.limits;
    if (input.events.length > maxEventsPerAppend) {
      const details = { events: input.events.length, limit: maxEventsPerAppend };
      const message = `an append may hold at most ${maxEventsPerAppend} events`;
      return Promise.reject(new HubError(HubErrorCode.BATCH_TOO_LARGE, message, details));
    }
    let bytes: number;
    try {
      bytes = assertDraftSizes(input.events, this.#deps.limits);
    } catch (error) {
      return Promise.reject(error);
    }
    const { hot } = this.#deps.metrics;
    hot.appendsQueued++;
    return new Promise<AppendOutcome>((resolve, reject) => {
      const item: QueuedAppend = {
        input,
        whenReady: ready,
        ready: false,
        bytes,
        readyError: undefined,
        refreshed: false,
        conflicts: 0,
        resolve: (outcome) => {
          hot.appendsQueued--;
          resolve(outcome);
        },
        reject: (error) => {
          hot.appendsQueued--;
          reject(error);
        },
      };
      ready.then(
        () => {
          item.ready = true;
        },
        (error: unknown) => {
          item.readyError = error ?? new Error('not ready');
        },
      );
      const queue = this.#queues.get(input.sessionId);
      if (queue !== undefined) {
        queue.push(item);
        return;
      }
      this.#queues.set(input.sessionId, [item]);
      const running = this.#drainQueue(input.sessionId).finally(() => this.#running.delete(running));
      this.#running.add(running);
    });
  }

  /** Refuse new appends and wait for the ones in flight. */
  async drain(): Promise<void> {
    this.#closing = true;
    while (this.#running.size > 0) await Promise.all([...this.#running]);
  }

  /** Commit the session's queued appends, group by group, until the queue is empty. Never rejects. */
  async #drainQueue(sessionId: string): Promise<void> {
    const queue = this.#queues.get(sessionId)!;
    try {
      while (queue.length > 0) {
        const head = queue[0]!;
        await head.whenReady.catch(() => undefined);
        if (!head.ready) {
          settle(queue, head).reject(head.readyError);
          continue;
        }
        let entry: CachedSession;
        try {
          entry = await this.#deps.cache.acquire(sessionId);
        } catch (error) {
          this.#fail(queue, [settle(queue, head)], error);
          continue;
        }
        try {
          await this.#step(queue, entry);
        } catch (error) {
          // A bug, not an outcome: fail the append it stopped at rather than the whole queue.
          this.#deps.logger.error({ err: error, sessionId }, 'append pipeline step failed');
          if (queue[0] === head) settle(queue, head).reject(error);
        } finally {
          this.#deps.cache.release(entry);
        }
      }
    } finally {
      this.#queues.delete(sessionId);
    }
  }

  /** One planning and commit round: settles at least one append, or refreshes the cache (bounded by retries). */
  async #step(queue: QueuedAppend[], entry: CachedSession): Promise<void> {
    // Import mode checks its time against the session's last event, which the validator does not keep.
    const head = queue[0]!;
    let lastTime: number | undefined;
    if (head.input.time !== undefined && entry.log.length > 0) {
      try {
        lastTime = (await this.#deps.store.read(entry.sessionId, entry.log.length - 1, 1))[0]?.time;
      } catch (error) {
        this.#fail(queue, [settle(queue, head)], error);
        return;
      }
    }
    const plan = planGroup(queue, entry.log, this.#groupLimits, lastTime);
    switch (plan.kind) {
      case 'seq-mismatch':
        return this.#onSeqMismatch(queue, entry, plan.item);
      case 'invalid': {
        const { item, error } = plan;
        // This node's copy may be behind the store (another node appended and no notice came yet): an append that
        // cites the newer events, or continues their turn, is valid. Refresh and plan again before refusing.
        if (!item.refreshed) return this.#refreshFor(queue, entry, item);
        settle(queue, item);
        const duplicate = await this.#probeDuplicate(item.input).catch((probeError: unknown) => {
          this.#fail(queue, [item], probeError);
          return null;
        });
        if (duplicate === null) return;
        if (duplicate !== undefined) item.resolve(duplicate);
        else item.reject(error);
        return;
      }
      case 'group':
        try {
          await this.#commitGroup(queue, entry, plan);
        } catch (error) {
          const unsettled = plan.items.filter((item) => queue.includes(item));
          this.#fail(
            queue,
            unsettled.map((item) => settle(queue, item)),
            error,
          );
        }
    }
  }

  /** Bring the entry up to the store's head once for `item`, which then is planned again. */
  async #refreshFor(queue: QueuedAppend[], entry: CachedSession, item: QueuedAppend): Promise<void> {
    item.refreshed = true;
    try {
      await this.#deps.cache.refresh(entry);
    } catch (error) {
      this.#fail(queue, [settle(queue, item)], error);
    }
  }

  async #onSeqMismatch(queue: QueuedAppend[], entry: CachedSession, item: QueuedAppend): Promise<void> {
    if (!item.refreshed) return this.#refreshFor(queue, entry, item);
    settle(queue, item);
    try {
      const duplicate = await this.#probeDuplicate(item.input);
      if (duplicate !== undefined) return item.resolve(duplicate);
      const nextSeq = entry.log.length;
      item.reject(
        seqConflict(`expectedSeq ${item.input.expectedSeq} does not match the head + 1 (${nextSeq})`, nextSeq - 1),
      );
    } catch (error) {
      this.#fail(queue, [item], error);
    }
  }

  async #commitGroup(queue: QueuedAppend[], entry: CachedSession, plan: GroupCommitPlan): Promise<void> {
    const { cache, metrics, retries } = this.#deps;
    const { sessionId } = entry;
    const { items, batches, trailers, time } = plan;
    const expectedSeq = entry.log.length;
    const { sent, owners } = storeBatches(batches, trailers);
    const request = { sessionId, expectedSeq, expectedEpoch: entry.epoch, batches: sent };
    const result = await this.#storeCommit(time === undefined ? request : { ...request, time });
    switch (result.status) {
      case 'committed': {
        const { epoch, events } = result;
        metrics.groupCommitAppends.observe(items.length);
        queue.splice(0, items.length); // a group is always the head of its queue
        if (expectedSeq === 0) this.#deps.onSessionCreated?.(sessionId, items[0]!.input.keyOwner, events[0]!.time);
        try {
          cache.applyOwnCommit(entry, epoch, events);
        } catch (error) {
          // The cache disagreed with the store (it dropped the entry and rebuilds it on the next append); the
          // appends are committed all the same, so they are acked, never answered with an error a client might
          // retry without a key.
          this.#deps.logger.error({ err: error, sessionId }, 'session cache rejected this node’s own commit');
        }
        try {
          const own = ownEvents(events, batches, trailers);
          items.forEach((item, index) => {
            const trailerEvents = trailers[index]?.events.length ?? 0;
            item.resolve(committedOutcome(sessionId, epoch, own[index]!, trailerEvents));
          });
        } finally {
          const handoff = new Promise<void>((resolve) =>
            afterAcks(() => {
              const bytes = items.reduce((sum, item) => sum + item.bytes, 0);
              this.#finished(sessionId, { sessionId, epoch, events }, bytes);
              resolve();
            }),
          );
          this.#running.add(handoff); // `drain` waits for it: a shutdown delivers what it acked
          void handoff.then(() => this.#running.delete(handoff));
        }
        return;
      }
      case 'keys-known':
        result.keys.forEach((known, index) => {
          if (known === undefined || owners[index]! < 0) return;
          const item = settle(queue, items[owners[index]!]!);
          if (known.sameBatch) item.resolve(duplicateOutcome(sessionId, { epoch: result.epoch, ...known }));
          else item.reject(idempotencyMismatch(known));
        });
        return;
      case 'conflict': {
        if (result.epoch === entry.epoch) {
          // Appends positioned by the client at a head that moved cannot be retried elsewhere.
          for (const item of items) {
            if (item.input.expectedSeq === undefined) continue;
            const message = `expectedSeq ${item.input.expectedSeq} does not match the head`;
            settle(queue, item).reject(seqConflict(message, result.headSeq));
          }
        }
        let attempt = 0;
        for (const item of items) {
          if (!queue.includes(item)) continue;
          item.refreshed = true;
          attempt = Math.max(attempt, item.conflicts);
          if (++item.conflicts > retries) {
            settle(queue, item).reject(seqConflict(`gave up after ${retries} conflicting retries`, result.headSeq));
          }
        }
        if (result.epoch === entry.epoch) {
          metrics.appendRetries.inc();
          await conflictBackoff(attempt);
        }
        // Deleted (and maybe rewritten) since the entry was built: validate again on the new log.
        if (result.epoch === entry.epoch && result.headSeq < expectedSeq - 1)
          cache.storeLostEvents(entry, result.headSeq);
        await cache.refresh(entry, result.epoch);
        return;
      }
    }
  }

  /** `store.commitGroup`, between `started` and (unless it committed: see `#commitGroup`) `finished`. */
  async #storeCommit(request: GroupCommitRequest): Promise<GroupCommitResult> {
    this.#deps.localCommits?.started(request.sessionId);
    let result: GroupCommitResult | undefined;
    try {
      result = await this.#deps.store.commitGroup(request);
      return result;
    } finally {
      if (result?.status !== 'committed') this.#finished(request.sessionId, undefined);
    }
  }

  #finished(sessionId: string, batch: CommittedBatch | undefined, bytes = 0): void {
    try {
      this.#deps.localCommits?.finished(sessionId, batch, bytes);
    } catch (error) {
      this.#deps.logger.error({ err: error, sessionId }, 'local fan-out of an own commit failed');
    }
  }

  /**
   * Fail `items` (already out of the queue) with `error`. When the store is unavailable, the appends queued behind
   * them fail too (nothing of theirs was written): the clients re-send them in order, and none overtakes an
   * earlier one that the store could not take.
   */
  #fail(queue: QueuedAppend[], items: readonly QueuedAppend[], error: unknown): void {
    for (const item of items) item.reject(error);
    if ((error as { code?: unknown } | null)?.code !== HubErrorCode.STORE_UNAVAILABLE) return;
    const behind = queue.splice(0, queue.length);
    const message = 'the store is unavailable (an earlier append of this session could not be committed)';
    for (const item of behind) item.reject(new StoreUnavailableError(message, { cause: error }));
  }

  /**
   * A retried append whose idempotency key already committed may no longer validate (or match `expectedSeq`) at
   * the current head: ask the store (a read) whether the key is known, and with the same batch.
   */
  async #probeDuplicate(input: AppendInput): Promise<AppendOutcome | undefined> {
    if (input.idempotencyKey === undefined) return undefined;
    let events: ValidatedDraft[];
    try {
      events = input.events.map(normalizeDraft);
    } catch {
      return undefined;
    }
    const { sessionId, idempotencyKey } = input;
    const { epoch, keys } = await this.#deps.store.lookupKeys({ sessionId, batches: [{ events, idempotencyKey }] });
    const known = keys[0];
    if (known === undefined || epoch === undefined) return undefined;
    if (!known.sameBatch) throw idempotencyMismatch(known);
    return duplicateOutcome(sessionId, { epoch, ...known });
  }
}

/** Take a settled append out of its queue (and return it, to resolve or reject). */
function settle(queue: QueuedAppend[], item: QueuedAppend): QueuedAppend {
  const index = queue.indexOf(item);
  if (index !== -1) queue.splice(index, 1);
  return item;
}
