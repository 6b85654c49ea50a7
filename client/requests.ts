import type { ServerMessage } from '../shared/protocol.ts';

/** What the owner of a request does with its reply, or when the connection it went out on is lost. */
export interface PendingRequest {
  /** The hub answered (a reply or an `error` carrying this id). */
  readonly onReply: (message: ServerMessage) => void;
  /** The connection dropped before an answer: the request's fate is unknown. */
  readonly onLost: () => void;
}

/**
 * Request ids and the requests awaiting an answer on the current connection. Ids are unique for the client's
 * lifetime, so a late reply from an old connection can never be taken for a new request's.
 */
export class RequestTracker {
  #nextId = 1;
  readonly #pending = new Map<number, PendingRequest>();

  /** A fresh request id. */
  nextId(): number {
    return this.#nextId++;
  }

  /** Await the answer to request `id`. */
  track(id: number, request: PendingRequest): void {
    this.#pending.set(id, request);
  }

  /** Stop waiting for request `id` (its owner gave up); a late answer is then ignored. */
  forget(id: number): void {
    this.#pending.delete(id);
  }

  /** Hand a reply to the request it answers; false when no request waits for that id. */
  settle(id: number, message: ServerMessage): boolean {
    const request = this.#pending.get(id);
    if (request === undefined) return false;
    this.#pending.delete(id);
    request.onReply(message);
    return true;
  }

  /** The connection dropped: tell every waiting request, then forget them all. */
  loseAll(): void {
    const lost = [...this.#pending.values()];
    this.#pending.clear();
    for (const request of lost) request.onLost();
  }

  get size(): number {
    return this.#pending.size;
  }
}
