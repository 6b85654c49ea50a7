// The @anthropic-ai/sdk (Messages) against the replay server, streamed into a real hub by the AgentWriter (see
// sdk-replay.ts), and conversations imported with draftsFrom*. The openai SDK is in sdk-streams-openai.test.ts.
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect } from 'vitest';
import { AgentWriter } from '../../client/index.ts';
import { draftsFromAnthropic, draftsFromOpenAIChat, toAnthropic, toOpenAIChat } from '../../shared/adapters/index.ts';
import { validateLifecycle } from '../../shared/index.ts';
import { it } from '../helpers/fixtures.ts';
import { expectMessagesCiteTheirChunks, useSdkReplay } from './sdk-replay.ts';
import { anthropicEnd, anthropicStart, blockDelta, blockStart, blockStop, typedEvents } from './sse-bodies.ts';

const replay = useSdkReplay();
const { logOf, openSession } = replay;

describe('Anthropic Messages through the @anthropic-ai/sdk SDK', () => {
  const anthropic = (): Anthropic => new Anthropic({ apiKey: 'test', baseURL: replay.server.url, maxRetries: 0 });

  it('streams thinking with its signature, a tool_use with input_json_delta and usage; next request is derived', async () => {
    const writer = await openSession('adapters/anthropic', '1+2*3?');
    replay.server.respond({
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
    replay.server.respond({
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
    expect(replay.server.requests.at(-1)).toMatchObject(expectedSecondRequest);
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
    replay.server.respond({
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
    const writer = await AgentWriter.attach(replay.hub.client, 'adapters/no-step');
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
    await replay.hub.client.append('adapters/import-chat', draftsFromOpenAIChat(chat));
    const chatLog = await replay.hub.store.read('adapters/import-chat', 0, 1000);
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
    await replay.hub.client.append('adapters/import-anthropic', draftsFromAnthropic(anthropicRequest));
    const anthropicLog = await replay.hub.store.read('adapters/import-anthropic', 0, 1000);
    expect(validateLifecycle(anthropicLog)).toEqual([]);
    expect(toAnthropic(anthropicLog)).toEqual(anthropicRequest);
  });
});
