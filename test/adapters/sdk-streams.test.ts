// The official SDK clients, pointed (baseURL) at a local server replaying SSE bodies in the providers' documented
// formats, streamed into a real hub by the AgentWriter; the session's derived messages, converted back with the
// adapters, are the next request (checked on the request the SDK actually sends).
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentWriter } from '../../client/index.ts';
import type { SessionEvent } from '../../client/index.ts';
import {
  draftsFromAnthropic,
  draftsFromOpenAIChat,
  toAnthropic,
  toOpenAIChat,
  toOpenAIResponses,
} from '../../shared/adapters/index.ts';
import { validateLifecycle } from '../../shared/index.ts';
import { useMemoryHubClient } from '../client/hubs.ts';
import { startReplayServer, type ReplayServer } from './replay-server.ts';
import {
  anthropicEnd,
  anthropicStart,
  blockDelta,
  blockStart,
  blockStop,
  chatChunk,
  chatToolCallDelta,
  chatUsage,
  dataEvents,
  responseCompleted,
  responsesEvent,
  typedEvents,
} from './sse-bodies.ts';

const hub = useMemoryHubClient();
let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(async () => {
  await server.close();
});

async function logOf(writer: AgentWriter): Promise<readonly SessionEvent[]> {
  await writer.flush();
  return hub.store.read(writer.sessionId, 0, 10_000);
}

/** A writer on a fresh session with a system prompt, a user question, and the first step open. */
async function openSession(sessionId: string, question: string): Promise<AgentWriter> {
  const writer = await AgentWriter.attach(hub.client, sessionId);
  void writer.setSystemPrompt('You are a calculator.');
  void writer.startTurn();
  void writer.userMessage(question);
  void writer.startStep();
  return writer;
}

/** Each assistant message cites exactly the chunks of its step, and they add up to its text. */
function expectMessagesCiteTheirChunks(log: readonly SessionEvent[]): void {
  let chunks: SessionEvent[] = [];
  for (const event of log) {
    if (event.type === 'assistant/chunk') chunks.push(event);
    if (event.type !== 'assistant/message') continue;
    expect(event.sourceEventSeqs ?? []).toEqual(chunks.map((chunk) => chunk.seq));
    const streamedText = chunks
      .map((chunk) => (chunk.data as { chunk: { type: string; text?: string } }).chunk)
      .filter((chunk) => chunk.type === 'text-delta')
      .map((chunk) => chunk.text)
      .join('');
    const content = (event.data as { message: { content: { type: string; text?: string }[] } }).message.content;
    const text = content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    expect(streamedText).toBe(text);
    chunks = [];
  }
}

describe('OpenAI Chat Completions (DeepSeek reasoning) through the openai SDK', () => {
  const openai = (): OpenAI => new OpenAI({ apiKey: 'test', baseURL: `${server.url}/v1`, maxRetries: 0 });

  it('streams reasoning, a tool call with argument deltas and usage; the next request is the derived one', async () => {
    const writer = await openSession('adapters/chat', '1+2*3?');
    server.respond({
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
    server.respond({
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
    expect((server.requests.at(-1) as { messages: unknown }).messages).toEqual(expectedSecondRequest);

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
    server.respond({
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
    server.respond({
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
    server.respond({
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
    const openai = new OpenAI({ apiKey: 'test', baseURL: `${server.url}/v1`, maxRetries: 0 });
    const writer = await openSession('adapters/responses', '1+2*3?');
    const call = { type: 'function_call', id: 'fc_1', call_id: 'call_r1', name: 'calculator' };
    server.respond({
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
    server.respond({
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
    expect((server.requests.at(-1) as { input: unknown }).input).toEqual(expectedSecondInput);
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
    const openai = new OpenAI({ apiKey: 'test', baseURL: `${server.url}/v1`, maxRetries: 0 });
    const writer = await openSession('adapters/responses-failed', 'hello?');
    server.respond({
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

describe('Anthropic Messages through the @anthropic-ai/sdk SDK', () => {
  const anthropic = (): Anthropic => new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });

  it('streams thinking with its signature, a tool_use with input_json_delta and usage; next request is derived', async () => {
    const writer = await openSession('adapters/anthropic', '1+2*3?');
    server.respond({
      body: typedEvents([
        anthropicStart(25),
        blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
        blockDelta(0, { type: 'thinking_delta', thinking: 'Use the ' }),
        blockDelta(0, { type: 'thinking_delta', thinking: 'calculator.' }),
        blockDelta(0, { type: 'signature_delta', signature: 'EqQBCgIYAhIM' }),
        blockStop(0),
        { type: 'ping' },
        blockStart(1, { type: 'text', text: '' }),
        blockDelta(1, { type: 'text_delta', text: 'Let me check.' }),
        blockStop(1),
        blockStart(2, { type: 'tool_use', id: 'toolu_1', name: 'calculator', input: {} }),
        blockDelta(2, { type: 'input_json_delta', partial_json: '' }),
        blockDelta(2, { type: 'input_json_delta', partial_json: '{"expression": "1+' }),
        blockDelta(2, { type: 'input_json_delta', partial_json: '2*3"}' }),
        blockStop(2),
        ...anthropicEnd('tool_use', 40),
      ]),
    });
    const request = async (): Promise<AsyncIterable<Anthropic.Messages.RawMessageStreamEvent>> =>
      anthropic().messages.create({
        model: 'claude-test',
        max_tokens: 1024,
        stream: true,
        ...toAnthropic(await logOf(writer)),
      });
    const first = await writer.streamAnthropic(await request());
    expect(first).toMatchObject({
      finishReason: 'tool_use',
      interrupted: false,
      toolCalls: [{ callId: 'toolu_1', name: 'calculator', input: { expression: '1+2*3' } }],
      usage: { inputTokens: 25, outputTokens: 40 },
    });
    await writer.toolResult({ callId: 'toolu_1', content: '7' });
    await writer.endStep();
    await writer.startStep();
    server.respond({
      body: typedEvents([
        anthropicStart(90),
        blockStart(0, { type: 'text', text: '' }),
        blockDelta(0, { type: 'text_delta', text: 'It is ' }),
        blockDelta(0, { type: 'text_delta', text: '7.' }),
        blockStop(0),
        ...anthropicEnd('end_turn', 5),
      ]),
    });
    await writer.streamAnthropic(await request());
    const expectedSecondRequest = {
      system: 'You are a calculator.',
      messages: [
        { role: 'user', content: '1+2*3?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Use the calculator.', signature: 'EqQBCgIYAhIM' },
            { type: 'text', text: 'Let me check.' },
            { type: 'tool_use', id: 'toolu_1', name: 'calculator', input: { expression: '1+2*3' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '7' }] },
      ],
    };
    expect(server.requests.at(-1)).toMatchObject(expectedSecondRequest);
    await writer.endTurn('completed');
    const log = await logOf(writer);
    expect(validateLifecycle(log, { complete: true })).toEqual([]);
    expectMessagesCiteTheirChunks(log);
    expect(toAnthropic(log)).toEqual({
      ...expectedSecondRequest,
      messages: [
        ...expectedSecondRequest.messages,
        { role: 'assistant', content: [{ type: 'text', text: 'It is 7.' }] },
      ],
    });
  });

  it('an error event mid-stream commits what arrived, marked interrupted, and rejects with the SDK error', async () => {
    const writer = await openSession('adapters/anthropic-error', 'hello?');
    server.respond({
      body: typedEvents([
        anthropicStart(10),
        blockStart(0, { type: 'text', text: '' }),
        blockDelta(0, { type: 'text_delta', text: 'Hel' }),
        { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      ]),
    });
    const stream = await anthropic().messages.create({
      model: 'claude-test',
      max_tokens: 1024,
      stream: true,
      ...toAnthropic(await logOf(writer)),
    });
    await expect(writer.streamAnthropic(stream)).rejects.toBeInstanceOf(Anthropic.APIError);
    await writer.endTurn('error');
    const log = await logOf(writer);
    expect(validateLifecycle(log, { complete: true })).toEqual([]);
    const message = log.find((event) => event.type === 'assistant/message')!;
    expect(message.data).toMatchObject({
      message: { content: [{ type: 'text', text: 'Hel' }], interrupted: true },
      usage: { inputTokens: 10 },
    });
    expectMessagesCiteTheirChunks(log);
  });

  it('refuses to stream outside an open step (INVALID_STATE), writing nothing', async () => {
    const writer = await AgentWriter.attach(hub.client, 'adapters/no-step');
    async function* never(): AsyncGenerator<{ type: string }> {}
    await expect(writer.streamAnthropic(never())).rejects.toMatchObject({ code: 'INVALID_STATE' });
    expect(writer.nextSeq).toBe(0);
  });
});

describe('imported conversations on a real hub', () => {
  it('draftsFrom* append to the hub as a valid lifecycle and convert back to the same request', async () => {
    const chat = {
      messages: [
        { role: 'system' as const, content: 'Be brief.' },
        { role: 'user' as const, content: 'Weather in Paris?' },
        {
          role: 'assistant' as const,
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function' as const, function: { name: 'weather', arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: 'tool' as const, tool_call_id: 'c1', content: 'Sunny' },
        { role: 'assistant' as const, content: 'Sunny.' },
      ],
    };
    await hub.client.append('adapters/import-chat', draftsFromOpenAIChat(chat));
    const chatLog = await hub.store.read('adapters/import-chat', 0, 1000);
    expect(validateLifecycle(chatLog, { complete: true })).toEqual([]);
    expect(toOpenAIChat(chatLog)).toEqual(chat.messages);

    const anthropicRequest = {
      system: 'Be brief.',
      messages: [
        { role: 'user' as const, content: 'Weather in Paris?' },
        {
          role: 'assistant' as const,
          content: [{ type: 'tool_use' as const, id: 't1', name: 'weather', input: { city: 'Paris' } }],
        },
        {
          role: 'user' as const,
          content: [{ type: 'tool_result' as const, tool_use_id: 't1', content: 'Sunny', is_error: true }],
        },
      ],
    };
    await hub.client.append('adapters/import-anthropic', draftsFromAnthropic(anthropicRequest));
    const anthropicLog = await hub.store.read('adapters/import-anthropic', 0, 1000);
    expect(validateLifecycle(anthropicLog)).toEqual([]);
    expect(toAnthropic(anthropicLog)).toEqual(anthropicRequest);
  });
});
