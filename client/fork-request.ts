import type { ForkedMessage, ForkRequest, ServerMessage } from '../shared/protocol.ts';
import { withTimeout } from '../shared/timeout.ts';
import { ClientErrorCode, HubClientError } from './errors.ts';
import type { RequestTracker } from './requests.ts';

/** Options of `HubClient.fork`. */
export interface ForkOptions {
  /** The new session's id (it must not exist: FORK_TARGET_EXISTS). Default: a random id the hub picks. */
  readonly newId?: string;
  /** Fork inside a turn: close the open turn in the fork as `recover()` does. Default false (FORK_INSIDE_TURN). */
  readonly repair?: boolean;
  /** Give up after this long (ms): TIMEOUT. Default: the client's `requestTimeoutMs`. */
  readonly timeoutMs?: number;
}

/** A fork as the hub made it (the `forked` reply without its envelope). */
export type ForkResult = Omit<ForkedMessage, 'type' | 'id'>;

/** What sending a fork needs from the client: its request ids, a way to send, and a wait for the connection. */
export interface ForkLink {
  readonly requests: RequestTracker;
  /** Resolves once the client is connected (at once when it is); stops waiting when `signal` aborts. */
  readonly connected: (signal: AbortSignal) => Promise<void>;
  /** Sends on the open connection; false when there is none. */
  readonly send: (message: ForkRequest) => boolean;
}

/**
 * Send `fork` once the client is connected and await its `forked` reply. TIMEOUT when no answer comes in time or the
 * connection drops with the request out (the fork may have happened: fork again with the same `newId`, which answers
 * `duplicate: true` for the same fork); the hub's error codes (FORK_INSIDE_TURN, FORK_TARGET_EXISTS, …) as they are.
 */
export function sendFork(
  link: ForkLink,
  request: Omit<ForkRequest, 'type' | 'id'>,
  timeoutMs: number,
): Promise<ForkResult> {
  const timedOut = (): HubClientError =>
    new HubClientError(ClientErrorCode.TIMEOUT, `no answer to the fork of ${request.sessionId} in ${timeoutMs} ms`, {
      sessionId: request.sessionId,
    });
  let id: number | undefined;
  const gaveUp = new AbortController();
  const answer = link.connected(gaveUp.signal).then(
    () =>
      new Promise<ForkResult>((resolve, reject) => {
        const requestId = (id = link.requests.nextId());
        link.requests.track(requestId, {
          onReply: (reply) => settle(reply, resolve, reject),
          onLost: () => reject(timedOut()),
        });
        if (!link.send({ type: 'fork', id: requestId, ...request })) {
          link.requests.forget(requestId);
          reject(new HubClientError(ClientErrorCode.NOT_SENT, 'the fork was not sent: not connected'));
        }
      }),
  );
  return withTimeout(answer, timeoutMs, timedOut).finally(() => {
    gaveUp.abort();
    if (id !== undefined) link.requests.forget(id);
  });
}

function settle(reply: ServerMessage, resolve: (result: ForkResult) => void, reject: (error: unknown) => void): void {
  if (reply.type === 'forked') {
    const { type: _type, id: _id, ...result } = reply;
    resolve(result);
  } else if (reply.type === 'error') {
    reject(new HubClientError(reply.code, reply.message, { details: reply.details, sessionId: reply.sessionId }));
  } else reject(new HubClientError(ClientErrorCode.PROTOCOL, `unexpected ${reply.type} in reply to fork`));
}
