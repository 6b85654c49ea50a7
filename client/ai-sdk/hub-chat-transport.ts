import type { ChatTransport } from 'ai';
import { AgentWriter } from '../agent-writer.ts';
import { HubClientError } from '../errors.ts';
import type { HubClient } from '../hub-client.ts';
import { sessionView, type SessionView } from '../session-store.ts';
import { backoffDelay, type BackoffOptions } from '../../shared/backoff.ts';
import type { JsonObject } from '../../shared/json.ts';
import type { SessionEvent } from '../../shared/events.ts';
import type { Subscription } from '../subscription.ts';
import { uiToDerivedMessages } from './derived-ui.ts';
import type { HubUIMessage } from './log-ui.ts';
import { pendingReply, turnStream } from './turn-stream.ts';

/** Resolves once the view's subscription holds `seq` (or is closed, or `deadline` passed). */
function reachSeq(view: SessionView, seq: number, deadline: number): Promise<void> {
  const subscription = view.subscription!;
  if (subscription.lastSeq >= seq || subscription.state === 'closed') return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      offEvent();
      offClosed();
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
    const offEvent = subscription.on('event', (event) => {
      if (event.seq >= seq) done();
    });
    const offClosed = subscription.on('closed', done);
  });
}

/** Whether the signal fired (read as a call: it may have fired while the caller awaited). */
const aborted = (signal: AbortSignal | undefined): boolean => signal?.aborted === true;

export interface HubChatTransportOptions {
  readonly client: HubClient;
  readonly sessionId: string;
}

/** Longest UI message id taken (the idempotency key `ui-message:<id>` must stay within the hub's 256 units). */
export const MAX_UI_MESSAGE_ID_LENGTH = 200;
/** Events read per step back when a snapshot-started view looks for the turn boundary before its tail. */
const OLDER_PAGE_EVENTS = 500;
/** Retry timing of `stop()` after a SEQ_CONFLICT (bound of the first delay → cap). */
const STOP_RETRY: BackoffOptions = { initialDelayMs: 5, maxDelayMs: 100 };

/**
 * A `ChatTransport` for the AI SDK's `useChat` that talks to a session hub instead of an HTTP route:
 * - `sendMessages` appends the last (user) message as a `user/message` (idempotent on its UI message id) and
 *   returns the reply — the first turn the agent starts after it — as UI message chunks built from the log;
 * - `reconnectToStream` (after a reload, or in another tab) replays the open turn from its start
 *   (`resumeStreamIsReplay`), or follows the turn a waiting user message will get; `null` when nothing is pending;
 * - aborting a stream (`useChat`'s `stop()`) calls `stop()`, which closes the open turn as interrupted in the log, so
 *   every tab and the agent see it.
 * The agent is any `AgentWriter` watching the session. Every transport and `useSession` on the same client and
 * session share one subscription.
 */
export class HubChatTransport implements ChatTransport<HubUIMessage> {
  readonly client: HubClient;
  readonly sessionId: string;
  readonly resumeStreamIsReplay = true;
  #reconnects = 0;

  constructor({ client, sessionId }: HubChatTransportOptions) {
    this.client = client;
    this.sessionId = sessionId;
  }

  /** The shared view of the session (the one `useSession(client, sessionId)` reads). */
  get view(): SessionView {
    return sessionView(this.client, this.sessionId);
  }

  sendMessages: ChatTransport<HubUIMessage>['sendMessages'] = async ({ trigger, messages, abortSignal }) => {
    const last = messages[messages.length - 1];
    if (trigger !== 'submit-message' || last?.role !== 'user') {
      throw new HubClientError('BAD_REQUEST', 'HubChatTransport sends user messages only (the agent writes replies)', {
        sessionId: this.sessionId,
      });
    }
    if (last.id.length === 0 || last.id.length > MAX_UI_MESSAGE_ID_LENGTH) {
      throw new HubClientError('BAD_REQUEST', `a UI message id must be 1 to ${MAX_UI_MESSAGE_ID_LENGTH} characters`, {
        sessionId: this.sessionId,
      });
    }
    const view = this.view;
    const release = view.retain();
    try {
      const [message] = uiToDerivedMessages([last]);
      const [event] = await this.client.append(
        this.sessionId,
        { type: 'user/message', data: message as JsonObject & { role: 'user'; content: string } },
        { idempotencyKey: `ui-message:${last.id}` },
      );
      return turnStream(view, event!.seq, abortSignal, () => this.#stopInBackground());
    } finally {
      release();
    }
  };

  reconnectToStream: ChatTransport<HubUIMessage>['reconnectToStream'] = async ({ abortSignal }) => {
    const generation = ++this.#reconnects;
    const view = this.view;
    const release = view.retain();
    try {
      const subscription = view.subscription!;
      await subscription.whenLive();
      if (abortSignal?.aborted === true) return null;
      // A view that started on a hub snapshot holds only the tail: the events back to the last turn boundary
      // before it are paged in over HTTP (`older`), so the pending reply is told from the log, never guessed.
      const older = await this.#eventsBeforeTail(subscription);
      if (aborted(abortSignal)) return null;
      const pending = pendingReply([...older, ...subscription.events]);
      if (pending.kind === 'none') return null;
      const afterSeq = pending.kind === 'open-turn' ? pending.turnStartSeq - 1 : pending.userSeq;
      // useChat aborts a resumed stream on stop(), and also when it starts another resume (then it calls this again
      // at once): only an abort that no new reconnect follows is a stop.
      return turnStream(
        view,
        afterSeq,
        abortSignal,
        () =>
          queueMicrotask(() => {
            if (this.#reconnects === generation) this.#stopInBackground();
          }),
        older,
      );
    } finally {
      release();
    }
  };

  /**
   * Stop the open turn for everyone: closes it in the log as `recover()` does (an error result for each unanswered
   * tool call, `step/end`, `turn/end { reason: { kind: 'interrupted' } }`, one atomic append, exactly once even when
   * several tabs stop at the same time). The agent sees its turn end and stops; its next write fails with
   * SEQ_CONFLICT. Resolves true when this call closed the turn, false when no turn was open.
   */
  async stop(): Promise<boolean> {
    const view = this.view;
    const release = view.retain();
    const deadline = Date.now() + this.client.requestTimeoutMs;
    try {
      for (let attempt = 0; ; attempt++) {
        const writer = await AgentWriter.attach(this.client, this.sessionId);
        if (!writer.turnOpen) return false;
        try {
          await writer.recover();
          return true;
        } catch (error) {
          // The agent wrote in between (it streams): read up to the head the hub named, then try again at once.
          const conflict = error instanceof HubClientError && error.code === 'SEQ_CONFLICT';
          if (!conflict || Date.now() > deadline) throw error;
          const headSeq = error.details?.['headSeq'];
          if (typeof headSeq === 'number') await reachSeq(view, headSeq, deadline);
          else await new Promise((wait) => setTimeout(wait, backoffDelay(attempt, STOP_RETRY)));
        }
      }
    } finally {
      release();
    }
  }

  /**
   * The events before the subscription's tail (none when it holds the log from seq 0), read back page by page from
   * its first seq until the page that holds a turn boundary (`turn/start` or `turn/end`), or seq 0: what
   * `pendingReply` needs besides the tail. Nothing is read when the tail itself holds a boundary.
   */
  async #eventsBeforeTail(subscription: Subscription): Promise<readonly SessionEvent[]> {
    const isBoundary = (event: SessionEvent): boolean => event.type === 'turn/start' || event.type === 'turn/end';
    if (subscription.fromSeq === 0 || subscription.events.some(isBoundary)) return [];
    const pages: (readonly SessionEvent[])[] = [];
    const epoch = subscription.epoch;
    for (let until = subscription.fromSeq - 1; until >= 0; until -= OLDER_PAGE_EVENTS) {
      const from = Math.max(0, until - OLDER_PAGE_EVENTS + 1);
      const read = await this.client.readEvents(this.sessionId, from, until, epoch === undefined ? {} : { epoch });
      pages.unshift(read.events);
      if (read.events.some(isBoundary)) break;
    }
    return pages.flat();
  }

  /** A stop from an aborted stream: nobody awaits it, so its failure is reported, never left unhandled. */
  #stopInBackground(): void {
    this.stop().catch((error: unknown) => console.warn(`[session-hub ai-sdk] stop failed: ${String(error)}`, error));
  }
}
