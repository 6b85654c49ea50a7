import type { UIMessageChunk } from 'ai';
import type { SessionEvent, TurnEndReasonKind } from '../../shared/events.ts';
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import { assistantParts } from './derived-ui.ts';
import { parseInput, record } from './json-input.ts';

/** What a turn's UI message carries as metadata: its turn number and how it stands. */
export interface HubTurnMetadata {
  readonly turn: number;
  /** `streaming` while open; else the `turn/end` reason's kind (`interrupted` for a stopped turn). */
  readonly status: 'streaming' | TurnEndReasonKind;
}

/** The UI message id of a turn's assistant reply (the same in every tab, before and after a reload). */
export const turnMessageId = (turn: number): string => `turn-${turn}`;

const FINISH_REASONS: Record<TurnEndReasonKind, 'stop' | 'length' | 'content-filter' | 'error' | 'other'> = {
  completed: 'stop',
  'max-tokens': 'length',
  blocked: 'content-filter',
  error: 'error',
  aborted: 'other',
  interrupted: 'other',
};

/**
 * Turns the events of one turn, in seq order, into the AI SDK's UI message chunks: `start` at `turn/start`,
 * `start-step`/`finish-step` per step, text and reasoning deltas from `assistant/chunk`s (plain strings and the
 * `{ type: 'text-delta' | 'reasoning-delta' | 'tool-call-delta' }` chunks the provider streams write), a committed
 * `assistant/message` (its text, when no chunk streamed it), `tool/call` and `tool/result` as tool input and output,
 * and `finish` at `turn/end` (its reason in the metadata). Every part it opens it also closes, so the SDK's stream
 * reader never sees a delta without its start.
 */
export class TurnChunker {
  #turn = 0;
  #step = 0;
  #open: { kind: 'text' | 'reasoning'; id: string } | undefined;
  #parts = 0;
  #streamedInStep = false;
  /** Tool calls streamed by index within the step: their call id once known. */
  readonly #streamedCalls = new Map<number, string>();
  readonly #startedCalls = new Set<string>();
  #finished = false;

  /** True once the turn's `turn/end` went through. */
  get finished(): boolean {
    return this.#finished;
  }

  /** The chunks one event of the turn makes (none for events outside it). */
  push(event: SessionEvent): UIMessageChunk[] {
    const out: UIMessageChunk[] = [];
    const data = record(event.data as JsonValue) ?? {};
    switch (event.type) {
      case 'turn/start':
        this.#turn = data['turn'] as number;
        out.push({
          type: 'start',
          messageId: turnMessageId(this.#turn),
          messageMetadata: { turn: this.#turn, status: 'streaming' } satisfies HubTurnMetadata,
        });
        break;
      case 'step/start':
        this.#step = data['step'] as number;
        this.#streamedInStep = false;
        this.#streamedCalls.clear();
        out.push({ type: 'start-step' });
        break;
      case 'assistant/chunk':
        this.#chunk(data['chunk'], out);
        break;
      case 'assistant/message':
        this.#close(out);
        if (!this.#streamedInStep) this.#message(data['message'], out);
        break;
      case 'tool/call':
        this.#close(out);
        this.#toolCall(data['callId'] as string, data['name'] as string, data['arguments'] as string, out);
        break;
      case 'tool/result':
        if (event.surfaceOp === 'append') this.#toolResult(data, out);
        break;
      case 'step/end':
        this.#close(out);
        out.push({ type: 'finish-step' });
        break;
      case 'turn/end': {
        this.#close(out);
        const kind = (record(data['reason'])?.['kind'] ?? 'completed') as TurnEndReasonKind;
        out.push({
          type: 'finish',
          finishReason: FINISH_REASONS[kind] ?? 'other',
          messageMetadata: { turn: this.#turn, status: kind } satisfies HubTurnMetadata,
        });
        this.#finished = true;
        break;
      }
      default:
        break;
    }
    return out;
  }

  #chunk(chunk: JsonValue | undefined, out: UIMessageChunk[]): void {
    if (typeof chunk === 'string') {
      this.#delta('text', chunk, out);
      return;
    }
    const fields = record(chunk);
    const type = fields?.['type'];
    if (type === 'text-delta' || type === 'reasoning-delta') {
      const text = fields?.['text'];
      if (typeof text === 'string') this.#delta(type === 'text-delta' ? 'text' : 'reasoning', text, out);
    } else if (type === 'tool-call-delta' && fields !== undefined) {
      this.#toolDelta(fields, out);
    }
  }

  #delta(kind: 'text' | 'reasoning', delta: string, out: UIMessageChunk[]): void {
    this.#streamedInStep = true;
    if (this.#open?.kind !== kind) {
      this.#close(out);
      this.#open = { kind, id: `${this.#turn}-${this.#step}-${this.#parts++}` };
      out.push({ type: kind === 'text' ? 'text-start' : 'reasoning-start', id: this.#open.id });
    }
    out.push({ type: kind === 'text' ? 'text-delta' : 'reasoning-delta', id: this.#open.id, delta });
  }

  #toolDelta(fields: JsonObject, out: UIMessageChunk[]): void {
    const index = typeof fields['index'] === 'number' ? fields['index'] : 0;
    let callId = this.#streamedCalls.get(index);
    if (callId === undefined) {
      const id = fields['id'];
      const name = fields['name'];
      if (typeof id !== 'string' || typeof name !== 'string') return;
      callId = id;
      this.#close(out);
      this.#streamedCalls.set(index, callId);
      this.#startedCalls.add(callId);
      out.push({ type: 'tool-input-start', toolCallId: callId, toolName: name, dynamic: true });
    }
    const args = fields['arguments'];
    if (typeof args === 'string' && args !== '')
      out.push({ type: 'tool-input-delta', toolCallId: callId, inputTextDelta: args });
  }

  #message(message: JsonValue | undefined, out: UIMessageChunk[]): void {
    for (const part of assistantParts(record(message) ?? {})) {
      if (part.type === 'text' || part.type === 'reasoning') {
        this.#delta(part.type, part.text, out);
        this.#close(out);
      }
    }
  }

  #toolCall(callId: string, name: string, args: string, out: UIMessageChunk[]): void {
    this.#startedCalls.add(callId);
    out.push({
      type: 'tool-input-available',
      toolCallId: callId,
      toolName: name,
      input: parseInput(args),
      dynamic: true,
    });
  }

  #toolResult(data: JsonObject, out: UIMessageChunk[]): void {
    const message = record(data['message']) ?? {};
    const callId = message['toolCallId'];
    if (typeof callId !== 'string' || !this.#startedCalls.has(callId)) return;
    if (message['isError'] === true) {
      const content = message['content'];
      out.push({
        type: 'tool-output-error',
        toolCallId: callId,
        errorText: typeof content === 'string' ? content : JSON.stringify(content),
        dynamic: true,
      });
    } else {
      out.push({ type: 'tool-output-available', toolCallId: callId, output: message['content'], dynamic: true });
    }
  }

  #close(out: UIMessageChunk[]): void {
    if (this.#open === undefined) return;
    out.push({ type: this.#open.kind === 'text' ? 'text-end' : 'reasoning-end', id: this.#open.id });
    this.#open = undefined;
  }
}
