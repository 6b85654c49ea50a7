import type { UIMessageChunk } from 'ai';
import type { SessionView } from '../session-store.ts';
import type { SessionEvent } from '../../shared/events.ts';
import { TurnChunker } from './turn-chunks.ts';

/** Where a log's chat stands: the open turn's `turn/start` seq, or the seq of a user message no turn answered yet. */
export type PendingReply =
  | { readonly kind: 'open-turn'; readonly turnStartSeq: number; readonly turn: number }
  | { readonly kind: 'awaiting-turn'; readonly userSeq: number }
  | { readonly kind: 'none' };

/** Finds what a reconnecting chat should follow: an open turn, or a user message still waiting for its turn. */
export function pendingReply(events: readonly SessionEvent[]): PendingReply {
  let open: { seq: number; turn: number } | undefined;
  let lastUser = -1;
  let lastEnd = -1;
  for (const event of events) {
    if (event.type === 'turn/start') open = { seq: event.seq, turn: (event.data as { turn: number }).turn };
    else if (event.type === 'turn/end') {
      open = undefined;
      lastEnd = event.seq;
    } else if (event.type === 'user/message' && event.surfaceOp === 'append') lastUser = event.seq;
  }
  if (open !== undefined) return { kind: 'open-turn', turnStartSeq: open.seq, turn: open.turn };
  return lastUser > lastEnd ? { kind: 'awaiting-turn', userSeq: lastUser } : { kind: 'none' };
}

/**
 * The UI message chunks of the first turn that starts after `afterSeq`, from its `turn/start` to its `turn/end`,
 * read from the view's shared subscription (the events it holds, then each as it commits); `older` are the events
 * just before the ones it holds (read over HTTP for a view that started on a hub snapshot), taken first. `onAbort`
 * runs when `abortSignal` fires (the stream then ends). Holds the view while it runs.
 */
export function turnStream(
  view: SessionView,
  afterSeq: number,
  abortSignal: AbortSignal | undefined,
  onAbort: () => void,
  older: readonly SessionEvent[] = [],
): ReadableStream<UIMessageChunk> {
  let cleanup = (): void => undefined;
  return new ReadableStream<UIMessageChunk>({
    start(controller) {
      const release = view.retain();
      const subscription = view.subscription!;
      let chunker: TurnChunker | undefined;
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        cleanup();
        controller.close();
      };
      const take = (event: SessionEvent): void => {
        if (done || event.seq <= afterSeq) return;
        if (chunker === undefined) {
          if (event.type !== 'turn/start') return;
          chunker = new TurnChunker();
        }
        for (const chunk of chunker.push(event)) controller.enqueue(chunk);
        if (chunker.finished) finish();
      };
      const aborted = (): void => {
        if (done) return;
        onAbort();
        finish();
      };
      const offEvent = subscription.on('event', take);
      const offReset = subscription.on('reset', () => {
        if (done) return;
        controller.enqueue({ type: 'error', errorText: `session ${view.sessionId} was replaced (reset)` });
        finish();
      });
      const offClosed = subscription.on('closed', () => {
        if (done) return;
        controller.enqueue({ type: 'error', errorText: `subscription to ${view.sessionId} closed` });
        finish();
      });
      cleanup = () => {
        offEvent();
        offReset();
        offClosed();
        abortSignal?.removeEventListener('abort', aborted);
        release();
      };
      if (abortSignal?.aborted === true) {
        aborted();
        return;
      }
      abortSignal?.addEventListener('abort', aborted);
      const firstHeld = subscription.events[0]?.seq ?? subscription.lastSeq + 1;
      for (const event of older) if (event.seq < firstHeld) take(event);
      for (const event of subscription.events) take(event);
    },
    cancel() {
      cleanup();
    },
  });
}
