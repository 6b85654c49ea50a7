import { AnthropicReader, type AnthropicStreamEventLike } from './anthropic.ts';
import { OpenAIChatReader, type OpenAIChatChunkLike } from './openai-chat.ts';
import { OpenAIResponsesReader, type OpenAIResponsesEventLike } from './openai-responses.ts';
import { runProviderStream } from './run-stream.ts';
import type { ProviderStreamOptions, StreamedAssistant, StreamTarget } from './types.ts';

export type { AnthropicStreamEventLike, OpenAIChatChunkLike, OpenAIResponsesEventLike };
export type { ProviderStreamOptions, StreamedAssistant, StreamedToolCall, StreamTarget } from './types.ts';

export function streamOpenAIChat(
  target: StreamTarget,
  stream: AsyncIterable<OpenAIChatChunkLike>,
  options: ProviderStreamOptions = {},
): Promise<StreamedAssistant> {
  return runProviderStream(target, stream, new OpenAIChatReader(), options);
}

export function streamOpenAIResponses(
  target: StreamTarget,
  stream: AsyncIterable<OpenAIResponsesEventLike>,
  options: ProviderStreamOptions = {},
): Promise<StreamedAssistant> {
  return runProviderStream(target, stream, new OpenAIResponsesReader(), options);
}

export function streamAnthropic(
  target: StreamTarget,
  stream: AsyncIterable<AnthropicStreamEventLike>,
  options: ProviderStreamOptions = {},
): Promise<StreamedAssistant> {
  return runProviderStream(target, stream, new AnthropicReader(), options);
}
