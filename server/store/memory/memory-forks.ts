import type { SessionEvent } from '../../../shared/index.ts';
import { decodeEventBody, encodeEventBody, toSessionEvent } from '../codec/event-codec.ts';
import { StoreUnavailableError } from '../event-store.ts';
import type { ForkRequest, ForkResult, ForkStore, Lineage, LineageRead } from '../fork-store.ts';
import { MAX_FORK_DEPTH, StoreHasForksError } from '../fork-store.ts';
import { checkForkRequest } from '../fork-request-check.ts';
import { validateSessionId } from '../session-id.ts';
import { nextSeqOf, type MemoryBackend } from './memory-backend.ts';

/** The forks of one backend (shared by every store on it, as Redis is by every node). */
interface ForkTables {
  /** Each fork's lineage, while the fork exists. */
  readonly lineages: Map<string, Lineage>;
  /** Each session's forks (direct children). */
  readonly children: Map<string, Set<string>>;
}

const tablesOf = new WeakMap<MemoryBackend, ForkTables>();

function tables(backend: MemoryBackend): ForkTables {
  let found = tablesOf.get(backend);
  if (found === undefined) {
    found = { lineages: new Map(), children: new Map() };
    tablesOf.set(backend, found);
  }
  return found;
}

/** Whether a session of `backend` has forks (which read their prefix from it: it must not go while they exist). */
export function hasForks(backend: MemoryBackend, sessionId: string): boolean {
  return (tables(backend).children.get(sessionId)?.size ?? 0) > 0;
}

/**
 * The memory engine's forks (fork-store.ts): the fork is a session whose log starts at `atSeq + 1` (its
 * `firstSeq`), made with its lineage and first events in one synchronous step; the parent's set of forks is kept
 * beside the sessions. Same answers as the Redis engine's scripts.
 */
export class MemoryForks implements ForkStore {
  readonly #backend: MemoryBackend;
  readonly #isClosed: () => boolean;

  constructor(backend: MemoryBackend, isClosed: () => boolean) {
    this.#backend = backend;
    this.#isClosed = isClosed;
  }

  async create(request: ForkRequest): Promise<ForkResult> {
    this.#checkOpen();
    checkForkRequest(request);
    const { lineages, children } = tables(this.#backend);
    const parent = this.#backend.peek(request.parentId);
    const parentLength = nextSeqOf(parent);
    if (parent === undefined || parent.epoch !== request.parentEpoch || parentLength <= request.atSeq) {
      return { status: 'parent-changed', epoch: parent?.epoch ?? '', headSeq: parentLength - 1 };
    }
    const depth = (lineages.get(request.parentId)?.depth ?? 0) + 1;
    if (depth > MAX_FORK_DEPTH) return { status: 'too-deep', depth };
    const existing = this.#backend.peek(request.childId);
    if (existing !== undefined) {
      const lineage = lineages.get(request.childId);
      return { status: 'target-exists', epoch: existing.epoch, headSeq: nextSeqOf(existing) - 1, lineage };
    }
    const base = request.atSeq + 1;
    const child = this.#backend.session(request.childId);
    child.firstSeq = base;
    const time = Date.now();
    const events: SessionEvent[] = request.events.map((draft, index) =>
      toSessionEvent(decodeEventBody(encodeEventBody(draft), 'memory'), base + index, time),
    );
    child.events.push(...events);
    const lineage = { parent: request.parentId, forkSeq: request.atSeq, parentEpoch: request.parentEpoch, depth };
    lineages.set(request.childId, lineage);
    let set = children.get(request.parentId);
    if (set === undefined) children.set(request.parentId, (set = new Set()));
    set.add(request.childId);
    // Stores watching the (empty) id re-read it, as after a deletion.
    this.#backend.resync(request.childId);
    return { status: 'forked', epoch: child.epoch, headSeq: base + events.length - 1, lineage, events };
  }

  async lineage(sessionId: string): Promise<LineageRead> {
    this.#checkOpen();
    validateSessionId(sessionId);
    const session = this.#backend.peek(sessionId);
    if (session === undefined) return { epoch: undefined, lineage: undefined };
    return { epoch: session.epoch, lineage: tables(this.#backend).lineages.get(sessionId) };
  }

  async list(sessionId: string): Promise<string[]> {
    this.#checkOpen();
    validateSessionId(sessionId);
    return [...(tables(this.#backend).children.get(sessionId) ?? [])];
  }

  /** Before a session is deleted: refused (`StoreHasForksError`) while it has forks. */
  checkDeletable(sessionId: string): void {
    const forks = tables(this.#backend).children.get(sessionId)?.size ?? 0;
    if (forks > 0) throw new StoreHasForksError(sessionId, forks);
  }

  /** A session was deleted: its lineage goes, and it leaves its parent's forks. */
  deleted(sessionId: string): void {
    const { lineages, children } = tables(this.#backend);
    const lineage = lineages.get(sessionId);
    lineages.delete(sessionId);
    if (lineage === undefined) return;
    const set = children.get(lineage.parent);
    set?.delete(sessionId);
    if (set?.size === 0) children.delete(lineage.parent);
  }

  #checkOpen(): void {
    if (this.#isClosed()) throw new StoreUnavailableError('the store is closed');
  }
}
