// Type-level: the adapters' outputs are the official SDKs' request param types, the SDKs' own params are accepted by
// the importers, and the SDKs' streams by the AgentWriter. Checked by `tsc` (npm run typecheck); the runtime part
// checks that real values of those types pass through.
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AgentWriter } from '../../client/index.ts';
import {
  draftsFromAnthropic,
  draftsFromOpenAIChat,
  toAnthropic,
  toOpenAIChat,
  toOpenAIResponses,
} from '../../shared/adapters/index.ts';
import type { AnthropicRequest, OpenAIChatMessage, OpenAIResponsesInputItem } from '../../shared/adapters/wire.ts';

type ChatParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;
type ResponsesParams = OpenAI.Responses.ResponseCreateParamsStreaming;
type AnthropicParams = Anthropic.Messages.MessageCreateParamsStreaming;

describe('adapter types against the official SDKs', () => {
  it('to* outputs are the SDK request param types', () => {
    expectTypeOf<OpenAIChatMessage>().toExtend<OpenAI.Chat.Completions.ChatCompletionMessageParam>();
    expectTypeOf<ReturnType<typeof toOpenAIChat>>().toExtend<ChatParams['messages']>();
    expectTypeOf<OpenAIResponsesInputItem>().toExtend<OpenAI.Responses.ResponseInputItem>();
    expectTypeOf<ReturnType<typeof toOpenAIResponses>>().toExtend<
      Exclude<ResponsesParams['input'], string | undefined>
    >();
    expectTypeOf<AnthropicRequest['messages']>().toExtend<AnthropicParams['messages']>();
    expectTypeOf<NonNullable<AnthropicRequest['system']>>().toExtend<NonNullable<AnthropicParams['system']>>();

    const messages = [{ role: 'user' as const, content: 'hi' }];
    const chat: ChatParams = { model: 'm', stream: true, messages: toOpenAIChat(messages) };
    const responses: ResponsesParams = { model: 'm', stream: true, input: toOpenAIResponses(messages) };
    const anthropic: AnthropicParams = { model: 'm', max_tokens: 16, stream: true, ...toAnthropic(messages) };
    expect([chat.messages, responses.input, anthropic.messages]).toEqual([
      [{ role: 'user', content: 'hi' }],
      [{ type: 'message', role: 'user', content: 'hi' }],
      [{ role: 'user', content: 'hi' }],
    ]);
  });

  it('the importers take the SDK request params as they are', () => {
    const chat: ChatParams = {
      model: 'm',
      stream: true,
      messages: [
        { role: 'developer', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        { role: 'assistant', content: 'hello' },
      ],
    };
    const anthropic: AnthropicParams = {
      model: 'm',
      max_tokens: 16,
      stream: true,
      system: [{ type: 'text', text: 'be brief' }],
      messages: [{ role: 'user', content: 'hi' }],
    };
    expect(draftsFromOpenAIChat(chat).map((draft) => draft.type)).toContain('assistant/message');
    expect(draftsFromAnthropic(anthropic)[0]).toEqual({ type: 'system/message', data: { content: 'be brief' } });
  });

  it('AgentWriter takes the SDK streams (checked by tsc)', () => {
    type Writer = Pick<AgentWriter, 'streamOpenAIChat' | 'streamOpenAIResponses' | 'streamAnthropic'>;
    expectTypeOf<OpenAI.Chat.Completions.ChatCompletionChunk>().toExtend<
      Parameters<Writer['streamOpenAIChat']>[0] extends AsyncIterable<infer T> ? T : never
    >();
    expectTypeOf<AsyncIterable<OpenAI.Responses.ResponseStreamEvent>>().toExtend<
      Parameters<Writer['streamOpenAIResponses']>[0]
    >();
    expectTypeOf<AsyncIterable<Anthropic.Messages.RawMessageStreamEvent>>().toExtend<
      Parameters<Writer['streamAnthropic']>[0]
    >();
    // The streams the SDK methods return.
    type ChatStream = Awaited<ReturnType<OpenAI['chat']['completions']['create']>>;
    expectTypeOf<Extract<ChatStream, AsyncIterable<unknown>>>().toExtend<Parameters<Writer['streamOpenAIChat']>[0]>();
    type AnthropicStream = Awaited<ReturnType<Anthropic['messages']['create']>>;
    expectTypeOf<Extract<AnthropicStream, AsyncIterable<unknown>>>().toExtend<
      Parameters<Writer['streamAnthropic']>[0]
    >();
  });
});
