import type { DynamicToolUIPart, UIMessage, UIMessageChunk } from 'ai';
import type { SessionEvent } from '../../shared/events.ts';
import type { JsonObject } from '../../shared/json.ts';
import { userUIMessage } from './derived-ui.ts';
import { TurnChunker, type HubTurnMetadata } from './turn-chunks.ts';

/** A chat message as the hub shows it: a `UIMessage` whose assistant messages carry their turn's metadata. */
export type HubUIMessage = UIMessage<HubTurnMetadata | undefined>;

type Part = HubUIMessage['parts'][number];

/**
 * Builds one assistant message from the chunks of its turn, as the AI SDK's stream reader would (text and reasoning
 * parts by id, `dynamic-tool` parts by call id, a `step-start` part per step), synchronously.
 */
export class UIMessageBuilder {
  readonly message: HubUIMessage;
  readonly #byId = new Map<string, Part>();

  constructor(id: string) {
    this.message = { id, role: 'assistant', parts: [] };
  }

  apply(chunk: UIMessageChunk): void {
    const parts = this.message.parts;
    switch (chunk.type) {
      case 'start':
      case 'finish':
        if (chunk.messageMetadata !== undefined) this.message.metadata = chunk.messageMetadata as HubTurnMetadata;
        break;
      case 'start-step':
        parts.push({ type: 'step-start' });
        break;
      case 'text-start':
      case 'reasoning-start': {
        const part: Part = { type: chunk.type === 'text-start' ? 'text' : 'reasoning', text: '', state: 'streaming' };
        this.#byId.set(chunk.id, part);
        parts.push(part);
        break;
      }
      case 'text-delta':
      case 'reasoning-delta':
        this.#replace(chunk.id, (part) => ('text' in part ? { ...part, text: part.text + chunk.delta } : part));
        break;
      case 'text-end':
      case 'reasoning-end':
        this.#replace(chunk.id, (part) => ({ ...part, state: 'done' }) as Part);
        break;
      case 'tool-input-start':
        this.#tool(chunk.toolCallId, {
          type: 'dynamic-tool',
          toolCallId: chunk.toolCallId,
          toolName: chunk.toolName,
          state: 'input-streaming',
          rawInput: '',
        });
        break;
      case 'tool-input-delta':
        this.#replace(chunk.toolCallId, (part) =>
          part.type === 'dynamic-tool' && part.state === 'input-streaming'
            ? { ...part, rawInput: (part.rawInput ?? '') + chunk.inputTextDelta }
            : part,
        );
        break;
      case 'tool-input-available':
        this.#tool(chunk.toolCallId, {
          type: 'dynamic-tool',
          toolCallId: chunk.toolCallId,
          toolName: chunk.toolName,
          state: 'input-available',
          input: chunk.input,
        });
        break;
      case 'tool-output-available':
      case 'tool-output-error':
        this.#replace(chunk.toolCallId, (part) => {
          if (part.type !== 'dynamic-tool') return part;
          const base = {
            type: 'dynamic-tool',
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            input: part.input,
          };
          return chunk.type === 'tool-output-available'
            ? ({ ...base, state: 'output-available', output: chunk.output } as DynamicToolUIPart)
            : ({ ...base, state: 'output-error', errorText: chunk.errorText } as DynamicToolUIPart);
        });
        break;
      default:
        break;
    }
  }

  #tool(callId: string, part: DynamicToolUIPart): void {
    if (this.#byId.has(callId)) this.#replace(callId, () => part);
    else {
      this.#byId.set(callId, part);
      this.message.parts.push(part);
    }
  }

  #replace(id: string, change: (part: Part) => Part): void {
    const part = this.#byId.get(id);
    if (part === undefined) return;
    const next = change(part);
    const index = this.message.parts.indexOf(part);
    if (index >= 0) this.message.parts[index] = next;
    this.#byId.set(id, next);
  }
}

/**
 * The chat a log holds, as `UIMessage`s: each user message (append-origin `user/message`) as a user message, each
 * turn as one assistant message (id `turn-<n>`, metadata `{ turn, status }`) built from its events exactly as
 * `HubChatTransport` streams them, so a tab that loads the log shows what a tab that watched it stream shows, a
 * stopped turn's streamed text included. An open turn's parts are still streaming.
 */
export function logToUIMessages(events: readonly SessionEvent[]): HubUIMessage[] {
  const out: HubUIMessage[] = [];
  let chunker: TurnChunker | undefined;
  let builder: UIMessageBuilder | undefined;
  for (const event of events) {
    if (event.type === 'user/message' && event.surfaceOp === 'append') {
      const user = userUIMessage(event.data as JsonObject, `user-${event.seq}`);
      // A user message written inside its turn (an agent's own `userMessage`) goes before the turn's reply.
      const waiting = builder !== undefined && builder.message.parts.length === 0;
      out.splice(waiting ? out.length - 1 : out.length, 0, user as HubUIMessage);
      continue;
    }
    if (event.type === 'turn/start') {
      chunker = new TurnChunker();
      builder = new UIMessageBuilder('');
    }
    if (chunker === undefined || builder === undefined) continue;
    const chunks = chunker.push(event);
    if (event.type === 'turn/start') {
      const start = chunks[0];
      const id = start?.type === 'start' ? (start.messageId ?? '') : '';
      builder = new UIMessageBuilder(id);
      out.push(builder.message);
    }
    for (const chunk of chunks) builder.apply(chunk);
    if (chunker.finished) {
      chunker = undefined;
      builder = undefined;
    }
  }
  return out;
}
