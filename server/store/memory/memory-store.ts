import { endsPage } from '../page-bytes.ts';
import type { SessionEvent } from '../../../shared/index.ts';
import { decodeEventBody, encodeEventBody, toSessionEvent } from '../codec/event-codec.ts';
import {
  NO_EPOCH,
  StoreUnavailableError,
  type CommitRequest,
  type CommitResult,
  type EventStore,
  type GroupCommitRequest,
  type GroupCommitResult,
  type KeyLookup,
  type KeyLookupRequest,
  type KnownKey,
  type SessionHead,
  type StoredPage,
  type StoreWatchHandlers,
} from '../event-store.ts';
import { MemoryBackend, nextSeqOf, type MemorySession } from './memory-backend.ts';
import { eventsOf, pruneSessionKeys, trimSession } from './memory-trim.ts';
import type { IdempotencyPruneRequest, IdempotencyPruneResult } from '../idempotency-prune.ts';
import { MemoryRestore } from './memory-restore.ts';
import type { RestoreStore } from '../restore-store.ts';
import type { TrimRequest, TrimResult } from '../trim.ts';
import { groupOfOne, singleResult } from '../group-commit.ts';
import { checkGroupCommitRequest, checkKeyLookupRequest, checkReadRequest } from '../request-check.ts';
import { isSameBatch } from '../same-batch.ts';
import { validateSessionId } from '../session-id.ts';
import type { PresenceStore } from '../presence-store.ts';
import { MemoryPresence } from './memory-presence.ts';
import { MemorySnapshots } from './memory-snapshots.ts';
import { MemoryForks } from './memory-forks.ts';
import type { ForkStore } from '../fork-store.ts';
import type { SnapshotStore } from '../snapshot-store.ts';
import type { MetadataStore } from '../metadata-store.ts';
import { MemoryMetadata } from './memory-metadata.ts';
import type { RetentionStore } from '../retention-store.ts';
import { MemoryRetention } from './memory-retention.ts';
import type { RedactionStore } from '../redaction-store.ts';
import { MemoryRedactions } from './memory-redaction.ts';
import { MemoryArchiveLease } from './memory-archive-lease.ts';
import type { ArchiveLeaseStore } from '../archive-lease.ts';
import { reportAsWarning, WatcherRegistry, type StoreErrorReporter } from '../watcher-registry.ts';

export interface MemoryStoreOptions {
  /** Share one backend between several stores to model several hub nodes on one store. Default: a private one. */
  readonly backend?: MemoryBackend;
  /** Where errors thrown by watch handlers go. Default: a process warning. */
  readonly onError?: StoreErrorReporter;
}

/**
 * The embedded engine: one process, nothing persisted. Same semantics as the Redis engine: a random epoch per
 * session, idempotency keys kept for the session's lifetime (a retry compared with the events its key committed),
 * conflicts on an `expectedSeq` mismatch, watch notifications delivered asynchronously in commit order. Events are
 * stored as copies that went through the stored-body encoding both engines share (`codec/event-codec.ts`), so
 * both engines return identical values.
 */
export class MemoryStore implements EventStore {
  readonly engine = 'memory';
  readonly backend: MemoryBackend;
  readonly presence: PresenceStore;
  readonly snapshots: SnapshotStore;
  readonly metadata: MetadataStore;
  readonly retention: RetentionStore;
  readonly redactions: RedactionStore;
  readonly forks: ForkStore;
  readonly #forks: MemoryForks;
  readonly archiveLease: ArchiveLeaseStore;
  readonly restore: RestoreStore;
  readonly #watchers: WatcherRegistry;
  readonly #stopListening: () => void;
  #closed = false;

  constructor(options: MemoryStoreOptions = {}) {
    this.backend = options.backend ?? new MemoryBackend();
    this.presence = new MemoryPresence(this.backend);
    this.snapshots = new MemorySnapshots(this.backend, () => this.#closed);
    this.metadata = new MemoryMetadata(this.backend, () => this.#closed);
    this.retention = new MemoryRetention(this.backend, () => this.#closed);
    this.redactions = new MemoryRedactions(this.backend, () => this.#closed);
    this.forks = this.#forks = new MemoryForks(this.backend, () => this.#closed);
    this.archiveLease = new MemoryArchiveLease(this.backend, () => this.#closed);
    this.restore = new MemoryRestore(this.backend, () => this.#closed);
    this.#watchers = new WatcherRegistry(options.onError ?? reportAsWarning);
    this.#stopListening = this.backend.listen({
      committed: (batch) => this.#watchers.deliver(batch),
      deleted: (sessionId) => this.#watchers.resync([sessionId]),
      metadata: (sessionId, metadata) => this.#watchers.metadata(sessionId, metadata),
    });
  }

  async head(sessionId: string): Promise<SessionHead> {
    this.#checkOpen();
    validateSessionId(sessionId);
    const session = this.backend.peek(sessionId);
    const head = { epoch: session?.epoch ?? NO_EPOCH, headSeq: nextSeqOf(session) - 1 };
    return session !== undefined && session.firstSeq > 0 ? { ...head, firstSeq: session.firstSeq } : head;
  }

  async commit(request: CommitRequest): Promise<CommitResult> {
    return singleResult(await this.commitGroup(groupOfOne(request)));
  }

  async commitGroup(request: GroupCommitRequest): Promise<GroupCommitResult> {
    this.#checkOpen();
    checkGroupCommitRequest(request);
    const existing = this.backend.peek(request.sessionId);
    const current = existing?.epoch ?? NO_EPOCH;
    const keys = existing === undefined ? [] : knownKeys(existing, request);
    if (keys.some((known) => known !== undefined)) return { status: 'keys-known', epoch: current, keys };
    const firstSeq = nextSeqOf(existing);
    const expectedEpoch = request.expectedEpoch ?? NO_EPOCH;
    const epochMoved = expectedEpoch !== NO_EPOCH && expectedEpoch !== current;
    if (epochMoved || request.expectedSeq !== firstSeq) {
      return { status: 'conflict', epoch: current, headSeq: firstSeq - 1 };
    }
    // A session gets its epoch with its first events: a read or a refused commit creates nothing.
    const session = existing ?? this.backend.session(request.sessionId);
    const { epoch } = session;
    const time = request.time ?? Date.now();
    const events: SessionEvent[] = [];
    for (const batch of request.batches) {
      const batchFirstSeq = firstSeq + events.length;
      for (const draft of batch.events) {
        const stored = decodeEventBody(encodeEventBody(draft), 'memory');
        events.push(toSessionEvent(stored, firstSeq + events.length, time));
      }
      if (batch.idempotencyKey !== undefined) {
        const lastSeq = firstSeq + events.length - 1;
        session.idempotency.set(batch.idempotencyKey, { firstSeq: batchFirstSeq, lastSeq, time });
      }
    }
    for (const event of events) session.events.push(event);
    this.backend.publish({ sessionId: request.sessionId, epoch, events });
    return { status: 'committed', epoch, events };
  }

  async lookupKeys(request: KeyLookupRequest): Promise<KeyLookup> {
    this.#checkOpen();
    checkKeyLookupRequest(request);
    const session = this.backend.peek(request.sessionId);
    if (session === undefined) return { epoch: undefined, keys: request.batches.map(() => undefined) };
    return { epoch: session.epoch, keys: knownKeys(session, request) };
  }

  async read(sessionId: string, fromSeq: number, limit: number): Promise<readonly SessionEvent[]> {
    this.#checkOpen();
    checkReadRequest(sessionId, fromSeq, limit);
    return eventsOf(sessionId, this.backend.peek(sessionId), fromSeq, limit);
  }

  async readStoredPage(sessionId: string, fromSeq: number, limit: number, maxBytes?: number): Promise<StoredPage> {
    this.#checkOpen();
    checkReadRequest(sessionId, fromSeq, limit, maxBytes);
    const session = this.backend.peek(sessionId);
    return storedPageOf(session?.epoch, fromSeq, eventsOf(sessionId, session, fromSeq, limit), maxBytes);
  }

  /** See `EventStore.trim` (memory-trim.ts). */
  async trim(request: TrimRequest): Promise<TrimResult> {
    this.#checkOpen();
    return trimSession(this.backend.peek(request.sessionId), request);
  }

  /** See `EventStore.pruneIdempotencyKeys` (memory-trim.ts). */
  async pruneIdempotencyKeys(request: IdempotencyPruneRequest): Promise<IdempotencyPruneResult> {
    this.#checkOpen();
    return pruneSessionKeys(this.backend.peek(request.sessionId), request);
  }

  watch(sessionId: string, handlers: StoreWatchHandlers): () => void {
    this.#checkOpen();
    validateSessionId(sessionId);
    this.#watchers.add(sessionId, handlers);
    return this.#unwatch.bind(this, sessionId, handlers); // a bound method: no closure per watched session
  }

  #unwatch(sessionId: string, handlers: StoreWatchHandlers): void {
    this.#watchers.remove(sessionId, handlers);
  }

  async ping(): Promise<void> {
    this.#checkOpen();
  }

  /** The memory engine has no connection to lose: `listener` is never called. */
  onReconnect(listener: () => void): () => void {
    void listener;
    return () => undefined;
  }

  async listSessions(prefix = ''): Promise<string[]> {
    this.#checkOpen();
    return this.backend.sessionIds().filter((sessionId) => sessionId.startsWith(prefix));
  }

  async deleteSession(sessionId: string): Promise<boolean> {
    this.#checkOpen();
    validateSessionId(sessionId);
    this.#forks.checkDeletable(sessionId); // refused while forks read their prefix from it
    const deleted = this.backend.delete(sessionId);
    this.#forks.deleted(sessionId);
    return deleted;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopListening();
    this.#watchers.clear();
  }

  #checkOpen(): void {
    if (this.#closed) throw new StoreUnavailableError('the store is closed');
  }
}

/** What each batch's idempotency key committed in `session` (undefined: new key, or none). */
function knownKeys(
  session: MemorySession,
  request: { readonly batches: GroupCommitRequest['batches'] },
): (KnownKey | undefined)[] {
  return request.batches.map((batch): KnownKey | undefined => {
    const record = batch.idempotencyKey === undefined ? undefined : session.idempotency.get(batch.idempotencyKey);
    if (record === undefined) return undefined;
    const { firstSeq, lastSeq, time } = record;
    // Events trimmed from the log cannot be compared: the key's answer stands.
    const sameBatch =
      firstSeq < session.firstSeq ||
      isSameBatch(batch.events, session.events.slice(firstSeq - session.firstSeq, lastSeq + 1 - session.firstSeq));
    return { firstSeq, lastSeq, time, sameBatch };
  });
}

/**
 * Events (from seq `firstSeq` on) as a stored page: each one's body encoded as the Redis engine stores it, as many
 * as fit in `maxBytes` of bodies (at least one; `page-bytes.ts`): the events after the cut are never encoded.
 */
export function storedPageOf(
  epoch: string | undefined,
  firstSeq: number,
  events: readonly SessionEvent[],
  maxBytes?: number,
): StoredPage {
  const bodies: Uint8Array[] = [];
  const times: number[] = [];
  let bytes = 0;
  for (const event of events) {
    const body = encodeEventBody(event);
    if (endsPage(bodies.length, bytes, body.length, maxBytes))
      return { epoch, firstSeq, bodies, times, truncated: true };
    bytes += body.length;
    bodies.push(body);
    times.push(event.time);
  }
  return { epoch, firstSeq, bodies, times };
}
