import type { JsonValue } from '../../shared/json.ts';
import type { MessageAssembler } from './message-assembler.ts';
import { asIndex, asObject, asString, type Fields } from './read-fields.ts';
import { normalizedUsage, type ProviderReader, type StreamOutcome } from './run-stream.ts';

/** A Responses API stream event as far as it is read (a `ResponseStreamEvent`). */
export interface OpenAIResponsesEventLike {
  readonly type: string;
}

/**
 * Reads `responses.create({ stream: true })` events, blocks keyed by `output_index`: `response.output_text.delta`
 * as text, `response.reasoning_summary_text.delta` / `response.reasoning_text.delta` as reasoning,
 * `response.output_item.added` (a `function_call` item: `call_id`, `name`) then
 * `response.function_call_arguments.delta`/`.done` as a call. Finished at `response.completed` or
 * `response.incomplete` (its reason, e.g. `max_output_tokens`, is the finish reason); `response.failed` is a failure.
 */
export class OpenAIResponsesReader implements ProviderReader<OpenAIResponsesEventLike> {
  #finished = false;
  #finishReason: string | null = null;
  #usage: JsonValue | undefined;
  #failure: Error | undefined;

  read(event: OpenAIResponsesEventLike, message: MessageAssembler): void {
    const fields = asObject(event);
    const slot = asIndex(fields?.['output_index']);
    const delta = asString(fields?.['delta']) ?? '';
    switch (fields?.['type']) {
      case 'response.output_text.delta':
        if (slot !== undefined) message.text(slot, delta);
        break;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (slot !== undefined) message.thinking(slot, delta);
        break;
      case 'response.output_item.added':
      case 'response.output_item.done':
        if (slot !== undefined) this.#item(slot, asObject(fields['item']), message, fields['type'].endsWith('done'));
        break;
      case 'response.function_call_arguments.delta':
        if (slot !== undefined) message.toolArguments(slot, delta);
        break;
      case 'response.function_call_arguments.done': {
        const args = asString(fields['arguments']);
        if (slot !== undefined && args !== undefined) message.toolArgumentsDone(slot, args);
        break;
      }
      case 'response.completed':
      case 'response.incomplete':
        this.#end(asObject(fields['response']), fields['type'] === 'response.completed');
        break;
      case 'response.failed': {
        const error = asObject(asObject(fields['response'])?.['error']);
        this.#failure = new Error(`response failed: ${asString(error?.['message']) ?? 'no reason given'}`);
        break;
      }
    }
  }

  outcome(): StreamOutcome {
    return {
      finished: this.#finished,
      finishReason: this.#finishReason,
      usage: this.#usage,
      failure: this.#failure,
    };
  }

  #item(slot: number, item: Fields | undefined, message: MessageAssembler, done: boolean): void {
    if (item?.['type'] !== 'function_call') return;
    message.toolStart(slot, asString(item['call_id']) ?? `call_${slot}`, asString(item['name']) ?? '');
    const args = asString(item['arguments']);
    if (done && args !== undefined) message.toolArgumentsDone(slot, args);
  }

  #end(response: Fields | undefined, completed: boolean): void {
    this.#finished = true;
    const reason = asString(asObject(response?.['incomplete_details'])?.['reason']);
    this.#finishReason = completed ? 'completed' : (reason ?? 'incomplete');
    const usage = asObject(response?.['usage']);
    if (usage !== undefined) this.#usage = normalizedUsage(usage, usage['input_tokens'], usage['output_tokens']);
  }
}
