import type { JsonValue } from '../../shared/json.ts';
import type { MessageAssembler } from './message-assembler.ts';
import { asIndex, asObject, asString, type Fields } from './read-fields.ts';
import { normalizedUsage, type ProviderReader, type StreamOutcome } from './run-stream.ts';

/** A Messages API stream event as far as it is read (a `RawMessageStreamEvent`). */
export interface AnthropicStreamEventLike {
  readonly type: string;
}

/**
 * Reads `messages.create({ stream: true })` events: `content_block_start` (text, thinking, redacted_thinking,
 * tool_use) then its `content_block_delta`s (`text_delta`, `thinking_delta`, `signature_delta`,
 * `input_json_delta`); usage from `message_start` and `message_delta` (cumulative output tokens), the stop reason
 * from `message_delta`; finished at `message_stop`. (The SDK throws on an `error` event.)
 */
export class AnthropicReader implements ProviderReader<AnthropicStreamEventLike> {
  #finished = false;
  #stopReason: string | null = null;
  #usage: Fields = {};

  read(event: AnthropicStreamEventLike, message: MessageAssembler): void {
    const fields = asObject(event);
    if (fields === undefined) return;
    const index = asIndex(fields['index']);
    switch (fields['type']) {
      case 'message_start':
        this.#mergeUsage(asObject(asObject(fields['message'])?.['usage']));
        break;
      case 'content_block_start':
        if (index !== undefined) this.#start(index, asObject(fields['content_block']), message);
        break;
      case 'content_block_delta':
        if (index !== undefined) this.#delta(index, asObject(fields['delta']), message);
        break;
      case 'message_delta':
        this.#stopReason = asString(asObject(fields['delta'])?.['stop_reason']) ?? this.#stopReason;
        this.#mergeUsage(asObject(fields['usage']));
        break;
      case 'message_stop':
        this.#finished = true;
        break;
    }
  }

  outcome(): StreamOutcome {
    const usage = this.#usage;
    const reported = Object.keys(usage).length > 0;
    const normalized: JsonValue | undefined = reported
      ? normalizedUsage(usage, usage['input_tokens'], usage['output_tokens'])
      : undefined;
    return { finished: this.#finished, finishReason: this.#stopReason, usage: normalized, failure: undefined };
  }

  /** Later reports win field by field, except nulls (`message_delta` sends `input_tokens: null` when unchanged). */
  #mergeUsage(usage: Fields | undefined): void {
    if (usage === undefined) return;
    const merged: Record<string, unknown> = { ...this.#usage };
    for (const [key, value] of Object.entries(usage)) if (value !== null && value !== undefined) merged[key] = value;
    this.#usage = merged;
  }

  #start(index: number, block: Fields | undefined, message: MessageAssembler): void {
    switch (block?.['type']) {
      case 'text':
        message.text(index, asString(block['text']) ?? '');
        break;
      case 'thinking':
        message.thinking(index, asString(block['thinking']) ?? '');
        message.signature(index, asString(block['signature']) ?? '');
        break;
      case 'redacted_thinking':
        message.redacted(index, asString(block['data']) ?? '');
        break;
      case 'tool_use':
        message.toolStart(index, asString(block['id']) ?? `toolu_${index}`, asString(block['name']) ?? '');
        break;
    }
  }

  #delta(index: number, delta: Fields | undefined, message: MessageAssembler): void {
    switch (delta?.['type']) {
      case 'text_delta':
        message.text(index, asString(delta['text']) ?? '');
        break;
      case 'thinking_delta':
        message.thinking(index, asString(delta['thinking']) ?? '');
        break;
      case 'signature_delta':
        message.signature(index, asString(delta['signature']) ?? '');
        break;
      case 'input_json_delta':
        message.toolArguments(index, asString(delta['partial_json']) ?? '');
        break;
    }
  }
}
