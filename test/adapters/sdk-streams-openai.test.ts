// The openai SDK (Chat Completions with DeepSeek reasoning, Responses) against the replay server, streamed into a
// real hub by the AgentWriter: see sdk-replay.ts. The @anthropic-ai/sdk and imported conversations are in
// sdk-streams-anthropic-import.test.ts.
import OpenAI from 'openai';
import { describe, expect } from 'vitest';
import { toOpenAIChat, toOpenAIResponses } from '../../shared/adapters/index.ts';
import { validateLifecycle } from '../../shared/index.ts';
import { it } from '../helpers/fixtures.ts';
import { expectMessagesCiteTheirChunks, useSdkReplay } from './sdk-replay.ts';
import {
  chatChunk,
  chatToolCallDelta,
  chatUsage,
  dataEvents,
  responseCompleted,
  responsesEvent,
  typedEvents,
} from './sse-bodies.ts';

const replay = useSdkReplay();
const { logOf, openSession } = replay;

describe('OpenAI Chat Completions (DeepSeek reasoning) through the openai SDK', () => {
  const openai = (): OpenAI => new OpenAI({ apiKey: 'test', baseURL: `${replay.server.url}/v1`, maxRetries: 0 });

  it('streams reasoning, a tool call with argument deltas and usage; the next request is the derived one', async () => {
    const writer = await openSession('adapters/chat', '1+2*3?');
    replay.server.respond({
      body: dataEvents([
        chatChunk({ role: 'assistant', content: null, reasoning_content: 'Need ' }),
        chatChunk({ reasoning_content: 'to compute.' }),
        chatToolCallDelta(0, { id: 'call_1', type: 'function', function: { name: 'calculator', arguments: '' } }),
        chatToolCallDelta(0, { function: { arguments: '{"expression"' } }),
        chatToolCallDelta(0, { function: { arguments: ':"1+2*3"}' } }),
        chatChunk({}, 'tool_calls'),
        chatUsage(180, 21),
      ]),
    });
    const request = async (): Promise<AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>> =>
      openai().chat.completions.create({
        model: 'deepseek-chat',
        messages: toOpenAIChat(await logOf(writer), { reasoningContent: 'deepseek' }),
        stream: true,
        stream_options: { include_usage: true },
      });
    const first = await writer.streamOpenAIChat(await request(), { coalesceMs: 1 });
    expect(first.finishReason).toBe('tool_calls');
    expect(first.interrupted).toBe(false);
    expect(first.toolCalls).toEqual([
      { callId: 'call_1', name: 'calculator', arguments: '{"expression":"1+2*3"}', input: { expression: '1+2*3' } },
    ]);
    expect(first.usage).toMatchObject({ inputTokens: 180, outputTokens: 21 });

    await writer.toolResult({ callId: 'call_1', content: '7' });
    await writer.endStep();
    await writer.startStep();
    replay.server.respond({
      body: dataEvents([
        chatChunk({ role: 'assistant', content: 'It ' }),
        chatChunk({ content: 'is ' }),
        chatChunk({ content: '7.' }),
        chatChunk({}, 'stop'),
        chatUsage(220, 4),
      ]),
    });
    const second = await writer.streamOpenAIChat(await request());
    expect(second).toMatchObject({ finishReason: 'stop', toolCalls: [], interrupted: false });
    const expectedSecondRequest = [
      { role: 'system', content: 'You are a calculator.' },
      { role: 'user', content: '1+2*3?' },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'Need to compute.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'calculator', arguments: '{"expression":"1+2*3"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '7' },
    ];
    expect((replay.server.requests.at(-1) as { messages: unknown }).messages).toEqual(expectedSecondRequest);

    await writer.endTurn('completed');
    const log = await logOf(writer);
    expect(validateLifecycle(log, { complete: true })).toEqual([]);
    expectMessagesCiteTheirChunks(log);
    // After the answer the turn is over: DeepSeek wants the tool-calling reasoning of that turn back still.
    expect(toOpenAIChat(log, { reasoningContent: 'deepseek' })).toEqual([
      ...expectedSecondRequest,
      { role: 'assistant', content: 'It is 7.' },
    ]);
  });

  it('makes what the provider sent lossless JSON, so the message and its calls always commit together', async () => {
    const writer = await openSession('adapters/chat-lossless', 'odd values?');
    replay.server.respond({
      body: dataEvents([
        chatChunk({ role: 'assistant', content: 'a\ud800b' }),
        chatToolCallDelta(0, { id: 'c1', type: 'function', function: { name: 'f', arguments: '{"n":-0}' } }),
        chatToolCallDelta(1, {
          id: 'c2',
          type: 'function',
          function: { name: 'f', arguments: '{"id":12345678901234567890}' },
        }),
        chatChunk({}, 'tool_calls'),
      ]),
    });
    const stream = await openai().chat.completions.create({
      model: 'deepseek-chat',
      messages: toOpenAIChat(await logOf(writer)),
      stream: true,
    });
    const result = await writer.streamOpenAIChat(stream);
    expect(result.toolCalls).toEqual([
      { callId: 'c1', name: 'f', arguments: '{"n":-0}', input: { n: 0 } },
      { callId: 'c2', name: 'f', arguments: '{"id":12345678901234567890}', input: {} },
    ]);
    const log = await logOf(writer);
    expect(result.message.data).toMatchObject({
      message: {
        content: [
          { type: 'text', text: 'a\ufffdb' },
          { type: 'tool_use', id: 'c1', input: { n: 0 } },
          { type: 'tool_use', id: 'c2', input: {} },
        ],
      },
    });
    expect(log.filter((event) => event.type === 'tool/call')).toHaveLength(2);
    expectMessagesCiteTheirChunks(log);
  });

  it('an error mid-stream commits what arrived, marked interrupted, and rejects; the turn can end cleanly', async () => {
    const writer = await openSession('adapters/chat-error', 'hello?');
    replay.server.respond({
      body: [
        `data: ${JSON.stringify(chatChunk({ role: 'assistant', content: 'Hel' }))}\n\n`,
        `data: ${JSON.stringify(chatToolCallDelta(0, { id: 'call_9', function: { name: 'calculator', arguments: '{"ex' } }))}\n\n`,
        `data: ${JSON.stringify({ error: { message: 'The server had an error', type: 'server_error' } })}\n\n`,
      ].join(''),
    });
    const stream = await openai().chat.completions.create({
      model: 'deepseek-chat',
      messages: toOpenAIChat(await logOf(writer)),
      stream: true,
    });
    await expect(writer.streamOpenAIChat(stream)).rejects.toBeInstanceOf(OpenAI.APIError);
    await writer.endTurn('error');
    const log = await logOf(writer);
    expect(validateLifecycle(log, { complete: true })).toEqual([]);
    const message = log.find((event) => event.type === 'assistant/message')!;
    expect(message.data).toMatchObject({ message: { content: [{ type: 'text', text: 'Hel' }], interrupted: true } });
    expect(log.some((event) => event.type === 'tool/call')).toBe(false);
    expectMessagesCiteTheirChunks(log);
  });

  it('an aborted stream commits what arrived, marked interrupted', async () => {
    const writer = await openSession('adapters/chat-abort', 'hello?');
    replay.server.respond({
      body: `data: ${JSON.stringify(chatChunk({ role: 'assistant', content: 'Hel' }))}\n\n`,
      hold: true,
    });
    const stream = await openai().chat.completions.create({
      model: 'deepseek-chat',
      messages: toOpenAIChat(await logOf(writer)),
      stream: true,
    });
    async function* abortAfterFirst(): AsyncGenerator<OpenAI.Chat.Completions.ChatCompletionChunk> {
      for await (const chunk of stream) {
        yield chunk;
        stream.controller.abort();
      }
    }
    const result = await writer.streamOpenAIChat(abortAfterFirst());
    expect(result).toMatchObject({ interrupted: true, finishReason: null, toolCalls: [] });
    await writer.endTurn('interrupted');
    const log = await logOf(writer);
    expect(validateLifecycle(log, { complete: true })).toEqual([]);
    expect(result.message.data).toMatchObject({
      message: { content: [{ type: 'text', text: 'Hel' }], interrupted: true },
    });
  });
});

describe('OpenAI Responses through the openai SDK', () => {
  it('streams a reasoning summary, a function call with argument deltas and usage; next input is the derived one', async () => {
    const openai = new OpenAI({ apiKey: 'test', baseURL: `${replay.server.url}/v1`, maxRetries: 0 });
    const writer = await openSession('adapters/responses', '1+2*3?');
    const call = { type: 'function_call', id: 'fc_1', call_id: 'call_r1', name: 'calculator' };
    replay.server.respond({
      body: typedEvents([
        responsesEvent('response.created', { response: { id: 'resp_1', object: 'response', status: 'in_progress' } }),
        responsesEvent('response.output_item.added', {
          output_index: 0,
          item: { type: 'reasoning', id: 'rs_1', summary: [] },
        }),
        responsesEvent('response.reasoning_summary_text.delta', {
          item_id: 'rs_1',
          output_index: 0,
          summary_index: 0,
          delta: 'Compute ',
        }),
        responsesEvent('response.reasoning_summary_text.delta', {
          item_id: 'rs_1',
          output_index: 0,
          summary_index: 0,
          delta: 'it.',
        }),
        responsesEvent('response.output_item.added', {
          output_index: 1,
          item: { ...call, arguments: '', status: 'in_progress' },
        }),
        responsesEvent('response.function_call_arguments.delta', {
          item_id: 'fc_1',
          output_index: 1,
          delta: '{"expression":',
        }),
        responsesEvent('response.function_call_arguments.delta', {
          item_id: 'fc_1',
          output_index: 1,
          delta: '"1+2*3"}',
        }),
        responsesEvent('response.function_call_arguments.done', {
          item_id: 'fc_1',
          output_index: 1,
          arguments: '{"expression":"1+2*3"}',
        }),
        responsesEvent('response.output_item.done', {
          output_index: 1,
          item: { ...call, arguments: '{"expression":"1+2*3"}', status: 'completed' },
        }),
        responseCompleted(50, 12),
      ]),
    });
    const first = await writer.streamOpenAIResponses(
      await openai.responses.create({ model: 'gpt-test', input: toOpenAIResponses(await logOf(writer)), stream: true }),
    );
    expect(first).toMatchObject({
      finishReason: 'completed',
      toolCalls: [{ callId: 'call_r1', name: 'calculator', arguments: '{"expression":"1+2*3"}' }],
      usage: { inputTokens: 50, outputTokens: 12 },
    });
    await writer.toolResult({ callId: 'call_r1', content: '7' });
    await writer.endStep();
    await writer.startStep();
    replay.server.respond({
      body: typedEvents([
        responsesEvent('response.output_item.added', {
          output_index: 0,
          item: { type: 'message', id: 'msg_1', role: 'assistant', content: [] },
        }),
        responsesEvent('response.output_text.delta', {
          item_id: 'msg_1',
          output_index: 0,
          content_index: 0,
          delta: 'It is ',
          logprobs: [],
        }),
        responsesEvent('response.output_text.delta', {
          item_id: 'msg_1',
          output_index: 0,
          content_index: 0,
          delta: '7.',
          logprobs: [],
        }),
        responseCompleted(70, 3),
      ]),
    });
    const second = await writer.streamOpenAIResponses(
      await openai.responses.create({ model: 'gpt-test', input: toOpenAIResponses(await logOf(writer)), stream: true }),
    );
    expect(second.finishReason).toBe('completed');
    const expectedSecondInput = [
      { type: 'message', role: 'system', content: 'You are a calculator.' },
      { type: 'message', role: 'user', content: '1+2*3?' },
      { type: 'function_call', call_id: 'call_r1', name: 'calculator', arguments: '{"expression":"1+2*3"}' },
      { type: 'function_call_output', call_id: 'call_r1', output: '7' },
    ];
    expect((replay.server.requests.at(-1) as { input: unknown }).input).toEqual(expectedSecondInput);
    await writer.endTurn('completed');
    const log = await logOf(writer);
    expect(validateLifecycle(log, { complete: true })).toEqual([]);
    expectMessagesCiteTheirChunks(log);
    expect(toOpenAIResponses(log)).toEqual([
      ...expectedSecondInput,
      { type: 'message', role: 'assistant', content: 'It is 7.' },
    ]);
  });
});

describe('OpenAI Responses failures', () => {
  it('response.failed mid-stream commits what arrived, marked interrupted, and rejects', async () => {
    const openai = new OpenAI({ apiKey: 'test', baseURL: `${replay.server.url}/v1`, maxRetries: 0 });
    const writer = await openSession('adapters/responses-failed', 'hello?');
    replay.server.respond({
      body: typedEvents([
        responsesEvent('response.output_item.added', {
          output_index: 0,
          item: { type: 'message', id: 'msg_1', role: 'assistant', content: [] },
        }),
        responsesEvent('response.output_text.delta', {
          item_id: 'msg_1',
          output_index: 0,
          content_index: 0,
          delta: 'Hel',
          logprobs: [],
        }),
        responsesEvent('response.failed', {
          response: { id: 'resp_2', status: 'failed', error: { code: 'server_error', message: 'boom' } },
        }),
      ]),
    });
    const stream = await openai.responses.create({
      model: 'gpt-test',
      input: toOpenAIResponses(await logOf(writer)),
      stream: true,
    });
    await expect(writer.streamOpenAIResponses(stream)).rejects.toThrow('boom');
    await writer.endTurn('error');
    const log = await logOf(writer);
    expect(validateLifecycle(log, { complete: true })).toEqual([]);
    const message = log.find((event) => event.type === 'assistant/message')!;
    expect(message.data).toMatchObject({ message: { content: [{ type: 'text', text: 'Hel' }], interrupted: true } });
  });
});
