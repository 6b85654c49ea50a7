import {
  MetadataError,
  METADATA_LIMITS,
  EMPTY_METADATA,
  type SessionMetadata,
} from '../../../shared/session-metadata.ts';
import { StoreUnavailableError } from '../event-store.ts';
import {
  checkMetadataInit,
  type MetadataInit,
  type MetadataPatch,
  type MetadataStore,
  type SessionSummary,
} from '../metadata-store.ts';
import { validateSessionId } from '../session-id.ts';
import { encodeEventBody } from '../codec/event-codec.ts';
import type { MemoryBackend } from './memory-backend.ts';

function sortedLabels(labels: Iterable<[string, string]>): Readonly<Record<string, string>> {
  return Object.freeze(Object.fromEntries([...labels].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
}

/** The memory engine's session metadata: one frozen record per session in the backend, with the Redis semantics. */
export class MemoryMetadata implements MetadataStore {
  readonly #backend: MemoryBackend;
  readonly #isClosed: () => boolean;

  constructor(backend: MemoryBackend, isClosed: () => boolean) {
    this.#backend = backend;
    this.#isClosed = isClosed;
  }

  async get(sessionId: string): Promise<SessionMetadata | undefined> {
    this.#check(sessionId);
    if (this.#backend.peek(sessionId) === undefined) return undefined;
    return this.#backend.metadata.get(sessionId) ?? EMPTY_METADATA;
  }

  async patch(sessionId: string, patch: MetadataPatch): Promise<SessionMetadata | undefined> {
    this.#check(sessionId);
    if (this.#backend.peek(sessionId) === undefined) return undefined;
    const current = this.#backend.metadata.get(sessionId) ?? EMPTY_METADATA;
    const labels = new Map(Object.entries(current.labels));
    for (const [key, value] of Object.entries(patch.labels ?? {})) {
      if (value === null) labels.delete(key);
      else labels.set(key, value);
    }
    if (labels.size > METADATA_LIMITS.labels) {
      throw new MetadataError(
        `at most ${METADATA_LIMITS.labels} labels (the patch would leave ${labels.size})`,
        'labels',
      );
    }
    const { title, ...rest } = current;
    const nextTitle = patch.title === undefined ? title : (patch.title ?? undefined);
    const next: SessionMetadata = Object.freeze({
      ...rest,
      ...(nextTitle === undefined ? {} : { title: nextTitle }),
      labels: sortedLabels(labels),
      rev: current.rev + 1,
    });
    return this.#store(sessionId, next);
  }

  async initialize(sessionId: string, init: MetadataInit): Promise<SessionMetadata> {
    this.#check(sessionId);
    checkMetadataInit(init);
    const current = this.#backend.metadata.get(sessionId) ?? EMPTY_METADATA;
    const added = Object.entries(init).filter(
      ([field, value]) => value !== undefined && current[field as keyof MetadataInit] === undefined,
    );
    if (added.length === 0) return current;
    return this.#store(sessionId, Object.freeze({ ...current, ...Object.fromEntries(added), rev: current.rev + 1 }));
  }

  async summaries(sessionIds: readonly string[]): Promise<(SessionSummary | undefined)[]> {
    if (this.#isClosed()) throw new StoreUnavailableError('the store is closed');
    return sessionIds.map((sessionId) => {
      validateSessionId(sessionId);
      const session = this.#backend.peek(sessionId);
      if (session === undefined) return undefined;
      const metadata = this.#backend.metadata.get(sessionId) ?? EMPTY_METADATA;
      // Seq 0's time, when the session still holds it (the fallback of `createdAt`).
      const first = session.firstSeq === 0 ? session.events[0] : undefined;
      const last = session.events[session.events.length - 1];
      return {
        sessionId,
        epoch: session.epoch,
        headSeq: session.firstSeq + session.events.length - 1,
        lastActivity: last?.time,
        bytes: session.events.reduce((sum, event) => sum + encodeEventBody(event).byteLength, 0),
        metadata:
          metadata.createdAt === undefined && first !== undefined ? { ...metadata, createdAt: first.time } : metadata,
      };
    });
  }

  #store(sessionId: string, metadata: SessionMetadata): SessionMetadata {
    this.#backend.metadata.set(sessionId, metadata);
    this.#backend.publishMetadata(sessionId, metadata);
    return metadata;
  }

  #check(sessionId: string): void {
    if (this.#isClosed()) throw new StoreUnavailableError('the store is closed');
    validateSessionId(sessionId);
  }
}
