import { AgentWriter, HubClient, type SessionEvent, type Subscription } from 'session-hub';
import { pendingReply } from 'session-hub/ai-sdk';

/** A stand-in for a model: the words of its reply to `question`, streamed one by one. */
export type ScriptedModel = (question: string) => readonly string[];

export interface ChatAgentOptions {
  readonly url: string;
  readonly sessionId: string;
  /** The model (default: echoes the question back, word by word, ten times over). */
  readonly model?: ScriptedModel;
  /** Pause between two streamed words (the model's speed). Default 30 ms. */
  readonly wordDelayMs?: number;
  /** Called before each word; the agent waits for a promise it returns (tests hold a reply mid-stream with it). */
  readonly beforeWord?: (question: string, index: number) => Promise<void> | undefined;
}

const echo: ScriptedModel = (question) =>
  Array.from({ length: 10 }, (_, round) => `${round + 1}: ${question}`.split(' ').map((word) => `${word} `)).flat();

function questionOf(events: readonly SessionEvent[], userSeq: number): string {
  const data = events[userSeq]?.data as { content?: unknown } | undefined;
  return typeof data?.content === 'string' ? data.content : JSON.stringify(data?.content);
}

/**
 * The agent side of the example: it watches the session and answers every user message in a turn of one step,
 * streaming its reply as `text-delta` chunks through `AgentWriter` (any provider stream works the same way:
 * `writer.streamOpenAIChat(stream)`, see docs/react.md). When its turn is closed by someone else — `stop()` in a
 * tab closes it as interrupted — it stops streaming at once. Returns a function that stops the agent.
 */
export function startChatAgent(options: ChatAgentOptions): () => void {
  const { url, sessionId, model = echo, wordDelayMs = 30, beforeWord } = options;
  const client = new HubClient({ url });
  const subscription: Subscription = client.subscribe(sessionId);
  let busy = false;
  let stopped = false;

  async function answer(userSeq: number): Promise<void> {
    const writer = await AgentWriter.attach(client, sessionId);
    if (writer.turnOpen) await writer.recover(); // a turn a crashed agent left open
    const start = await writer.startTurn();
    const turn = writer.turn;
    let cancelled = false;
    const offEvent = subscription.on('event', (event) => {
      const data = event.data as { turn?: number };
      if (event.type === 'turn/end' && data.turn === turn && event.seq > start.seq) cancelled = true;
    });
    try {
      await writer.startStep();
      const question = questionOf(subscription.events, userSeq);
      const words = model(question);
      for (const [index, word] of words.entries()) {
        await beforeWord?.(question, index);
        if (cancelled || stopped) return;
        void writer.streamChunk({ type: 'text-delta', text: word });
        await new Promise((resolve) => setTimeout(resolve, wordDelayMs));
      }
      await writer.commitAssistantMessage({ content: words.join('') });
      await writer.endTurn('completed');
    } catch (error) {
      // A tab stopped the turn: our next write met its turn/end (SEQ_CONFLICT) before we saw it. Anything else is a
      // real failure.
      if (!cancelled && (error as { code?: unknown }).code !== 'SEQ_CONFLICT') throw error;
    } finally {
      offEvent();
      await writer.flush().catch(() => undefined);
    }
  }

  function look(): void {
    if (busy || stopped || !subscription.isLive) return;
    const pending = pendingReply(subscription.events);
    if (pending.kind !== 'awaiting-turn') return;
    busy = true;
    answer(pending.userSeq)
      .catch((error: unknown) => console.error('[agent]', error))
      .finally(() => {
        busy = false;
        look();
      });
  }

  subscription.on('event', look);
  subscription.on('live', look);
  return () => {
    stopped = true;
    client.close();
  };
}
