import type { JsonValue } from '../../shared/json.ts';
import type { MessageAssembler } from './message-assembler.ts';
import { asArray, asIndex, asObject, asString } from './read-fields.ts';
import { normalizedUsage, type ProviderReader, type StreamOutcome } from './run-stream.ts';

/** A Chat Completions stream chunk as far as it is read (a `ChatCompletionChunk`; DeepSeek's too). */
export interface OpenAIChatChunkLike {
  readonly choices: readonly unknown[];
}

const REASONING_SLOT = 0;
const TEXT_SLOT = 1;
const FIRST_TOOL_SLOT = 2;

/**
 * Reads `chat.completions.create({ stream: true })` chunks (choice 0): `delta.reasoning_content` (DeepSeek) as
 * reasoning, `delta.content` as text, `delta.tool_calls[i]` (id and name first, then argument deltas) as calls;
 * the stream is finished once a `finish_reason` came. Usage comes in the last chunk with
 * `stream_options: { include_usage: true }`.
 */
export class OpenAIChatReader implements ProviderReader<OpenAIChatChunkLike> {
  #finishReason: string | null = null;
  #usage: JsonValue | undefined;

  read(chunk: OpenAIChatChunkLike, message: MessageAssembler): void {
    const usage = asObject(asObject(chunk)?.['usage']);
    if (usage !== undefined) this.#usage = normalizedUsage(usage, usage['prompt_tokens'], usage['completion_tokens']);
    const choice = asArray(asObject(chunk)?.['choices'])
      .map(asObject)
      .find((candidate) => (candidate?.['index'] ?? 0) === 0);
    if (choice === undefined) return;
    const delta = asObject(choice['delta']);
    const reasoning = asString(delta?.['reasoning_content']);
    if (reasoning !== undefined) message.thinking(REASONING_SLOT, reasoning);
    const text = asString(delta?.['content']);
    if (text !== undefined) message.text(TEXT_SLOT, text);
    for (const call of asArray(delta?.['tool_calls']).map(asObject)) {
      const index = asIndex(call?.['index']);
      if (call === undefined || index === undefined) continue;
      const fn = asObject(call['function']);
      const slot = FIRST_TOOL_SLOT + index;
      message.toolStart(slot, asString(call['id']) ?? `call_${index}`, asString(fn?.['name']) ?? '');
      const args = asString(fn?.['arguments']);
      if (args !== undefined) message.toolArguments(slot, args);
    }
    const finish = asString(choice['finish_reason']);
    if (finish !== undefined) this.#finishReason = finish;
  }

  outcome(): StreamOutcome {
    return {
      finished: this.#finishReason !== null,
      finishReason: this.#finishReason,
      usage: this.#usage,
      failure: undefined,
    };
  }
}
