import type { AssistantMessage, KnownEventDraft, UserMessage } from '../events.ts';
import type { JsonValue } from '../json.ts';
import { adapterError, type Where } from './adapter-error.ts';

interface OpenCall {
  readonly callId: string;
  readonly name: string;
  readonly at: Where;
}

/**
 * Builds the drafts of an imported conversation as a valid lifecycle: a user message opens a turn (closing the
 * previous one), each assistant message is a step with its `tool/call`s, each tool result goes into the step of
 * its call's turn. At the end the last turn is closed (`completed`) when it ended with an answer, and left open
 * when it awaits the model (a user message or tool results last) or tool results (unanswered calls).
 */
export class DraftBuilder {
  readonly #drafts: KnownEventDraft[] = [];
  #turn = 0;
  #turnOpen = false;
  #step = 0;
  #stepOpen = false;
  #open: OpenCall[] = [];
  #lastRole: 'user' | 'assistant' | 'tool' | undefined;

  system(content: string): void {
    this.#drafts.push({ type: 'system/message', data: { content } });
  }

  /** A user message that opens a new turn. */
  user(content: JsonValue): void {
    this.#closeTurn();
    this.#turn++;
    this.#turnOpen = true;
    this.#step = 0;
    this.#drafts.push({ type: 'turn/start', data: { turn: this.#turn } });
    this.#drafts.push({ type: 'user/message', data: { role: 'user', content } as UserMessage });
    this.#lastRole = 'user';
  }

  /** A user message inside the open turn (after tool results in the same provider message); no call may be open. */
  userInTurn(content: JsonValue): void {
    if (this.#open.length > 0) this.#unanswered();
    this.#drafts.push({ type: 'user/message', data: { role: 'user', content } as UserMessage });
    this.#lastRole = 'user';
  }

  /** An assistant message (a new step) and a `tool/call` per call, `calls` in the order of the message. */
  assistant(
    message: AssistantMessage,
    calls: readonly { readonly id: string; readonly name: string; readonly arguments: string }[],
    at: Where,
  ): void {
    if (this.#open.length > 0) this.#unanswered();
    if (!this.#turnOpen) {
      this.#turn++;
      this.#turnOpen = true;
      this.#step = 0;
      this.#drafts.push({ type: 'turn/start', data: { turn: this.#turn } });
    }
    if (this.#stepOpen) this.#drafts.push({ type: 'step/end', data: this.#stepRef() });
    this.#step++;
    this.#stepOpen = true;
    this.#drafts.push({ type: 'step/start', data: this.#stepRef() });
    this.#drafts.push({ type: 'assistant/message', data: { ...this.#stepRef(), message } });
    for (const call of calls) {
      if (this.#open.some((open) => open.callId === call.id)) {
        throw adapterError('UNSUPPORTED_MESSAGE', at, `tool call id ${call.id} is used twice`);
      }
      this.#open.push({ callId: call.id, name: call.name, at });
      this.#drafts.push({
        type: 'tool/call',
        data: { ...this.#stepRef(), callId: call.id, name: call.name, arguments: call.arguments },
      });
    }
    this.#lastRole = 'assistant';
  }

  /** The name of the open call `callId`, or throws UNPAIRED_TOOL_MESSAGE. */
  callName(callId: string, at: Where): string {
    const call = this.#open.find((open) => open.callId === callId);
    if (call === undefined)
      throw adapterError('UNPAIRED_TOOL_MESSAGE', at, `tool result for ${callId} answers no call`);
    return call.name;
  }

  toolResult(callId: string, content: JsonValue, isError: boolean, at: Where): void {
    const toolName = this.callName(callId, at);
    this.#open = this.#open.filter((open) => open.callId !== callId);
    this.#drafts.push({
      type: 'tool/result',
      data: { ...this.#stepRef(), message: { role: 'tool', toolCallId: callId, toolName, content, isError } },
    });
    this.#lastRole = 'tool';
  }

  /** The drafts, the last turn closed or left open (see the class comment). */
  finish(): KnownEventDraft[] {
    if (this.#open.length === 0 && this.#lastRole === 'assistant') this.#closeTurn();
    return this.#drafts;
  }

  #closeTurn(): void {
    if (!this.#turnOpen) return;
    if (this.#open.length > 0) this.#unanswered();
    if (this.#stepOpen) this.#drafts.push({ type: 'step/end', data: this.#stepRef() });
    this.#stepOpen = false;
    this.#drafts.push({ type: 'turn/end', data: { turn: this.#turn, reason: { kind: 'completed' } } });
    this.#turnOpen = false;
  }

  #unanswered(): never {
    const call = this.#open[0]!;
    throw adapterError('UNPAIRED_TOOL_MESSAGE', call.at, `tool call ${call.callId} (${call.name}) has no result`);
  }

  #stepRef(): { turn: number; step: number } {
    return { turn: this.#turn, step: this.#step };
  }
}
