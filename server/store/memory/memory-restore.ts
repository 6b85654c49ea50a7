import type { SessionEvent } from '../../../shared/index.ts';
import { decodeEventBody, toSessionEvent } from '../codec/event-codec.ts';
import { StoreUnavailableError } from '../event-store.ts';
import { checkStageRequest, checkSwapRequest } from '../restore-check.ts';
import type {
  RestoreStageRequest,
  RestoreStageResult,
  RestoreStore,
  RestoreSwapRequest,
  RestoreSwapResult,
} from '../restore-store.ts';
import { validateSessionId } from '../session-id.ts';
import { nextSeqOf, type MemoryBackend, type RestoreStage } from './memory-backend.ts';

/**
 * The memory engine's restore (restore-store.ts): each session's stage is kept in the backend (shared by the stores
 * on it, dropped with the session), its events decoded as the log holds them; the swap is synchronous, so atomic.
 * Same answers as the Redis engine's scripts.
 */
export class MemoryRestore implements RestoreStore {
  readonly #backend: MemoryBackend;
  readonly #isClosed: () => boolean;

  constructor(backend: MemoryBackend, isClosed: () => boolean) {
    this.#backend = backend;
    this.#isClosed = isClosed;
  }

  /** The session's stage, unless it lapsed (then forgotten). */
  #stageOf(sessionId: string): RestoreStage | undefined {
    const stage = this.#backend.restoreStages.get(sessionId);
    if (stage === undefined || stage.until > Date.now()) return stage;
    this.#backend.restoreStages.delete(sessionId);
    return undefined;
  }

  async stage(request: RestoreStageRequest): Promise<RestoreStageResult> {
    this.#checkOpen();
    checkStageRequest(request);
    const stage = this.#stageOf(request.sessionId);
    const nextSeq = stage === undefined ? request.firstSeq : stage.firstSeq + stage.events.length;
    if (nextSeq !== request.firstSeq) return { status: 'gap', nextSeq };
    const where = `restore stage of session ${request.sessionId}`;
    const events: SessionEvent[] = request.bodies.map((body, index) =>
      toSessionEvent(decodeEventBody(body, where), request.firstSeq + index, request.times[index]!),
    );
    const until = Date.now() + request.ttlMs;
    if (stage === undefined) {
      this.#backend.restoreStages.set(request.sessionId, { firstSeq: request.firstSeq, events, until });
    } else {
      stage.events.push(...events);
      stage.until = until;
    }
    return { status: 'staged', nextSeq: nextSeq + events.length };
  }

  async swap(request: RestoreSwapRequest): Promise<RestoreSwapResult> {
    this.#checkOpen();
    checkSwapRequest(request);
    const session = this.#backend.peek(request.sessionId);
    const stage = this.#stageOf(request.sessionId);
    const epoch = session?.epoch ?? '';
    const base = session?.firstSeq ?? 0;
    const length = nextSeqOf(session);
    const stagedNext = stage === undefined ? 0 : stage.firstSeq + stage.events.length;
    const unchanged = { epoch, firstSeq: base, headSeq: length - 1, stagedNext, copied: 0 };
    if (session === undefined || epoch !== request.epoch) return { status: 'conflict', ...unchanged };
    if (stage === undefined || stage.firstSeq > base || stagedNext < base || stagedNext > length) {
      return { status: 'gap', ...unchanged };
    }
    const behind = length - stagedNext;
    if (behind > request.maxCopy) return { status: 'behind', ...unchanged };
    const appended = session.events.slice(stagedNext - base);
    session.events.length = 0; // refilled one by one: a spread of a long log would overflow the call stack
    for (const event of stage.events) session.events.push(event);
    for (const event of appended) session.events.push(event);
    session.firstSeq = stage.firstSeq;
    this.#backend.restoreStages.delete(request.sessionId);
    return { status: 'swapped', epoch, firstSeq: stage.firstSeq, headSeq: length - 1, stagedNext, copied: behind };
  }

  async discard(sessionId: string): Promise<boolean> {
    this.#checkOpen();
    validateSessionId(sessionId);
    return this.#backend.restoreStages.delete(sessionId);
  }

  #checkOpen(): void {
    if (this.#isClosed()) throw new StoreUnavailableError('the memory store is closed');
  }
}
