// The adapters on the shared fixtures (golden files per format), their error cases, and DeepSeek's reasoning rule.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  draftsFromAnthropic,
  draftsFromOpenAIChat,
  toAnthropic,
  toOpenAIChat,
  toOpenAIResponses,
} from '../../shared/adapters/index.ts';
import { parseJsonl, Session, SessionLogError } from '../../shared/index.ts';
import type { DerivedMessage, EventDraft, SessionEvent } from '../../shared/index.ts';
import { thrown } from '../helpers/thrown.ts';

const fixtures = new URL('../fixtures/', import.meta.url);
const golden = new URL('../fixtures/adapters/', import.meta.url);

function readJson(url: URL): unknown {
  return JSON.parse(readFileSync(url, 'utf8')) as unknown;
}

function log(drafts: readonly EventDraft[]): readonly SessionEvent[] {
  const session = new Session();
  for (const draft of drafts) session.append(draft);
  return session.events;
}

describe('the shared fixtures convert to each format (golden files)', () => {
  for (const name of ['calculator-turn', 'seed-example', 'replace-and-prune']) {
    it(name, () => {
      const events = parseJsonl(readFileSync(new URL(`${name}.jsonl`, fixtures), 'utf8'));
      const messages = readJson(new URL(`${name}.messages.json`, fixtures)) as DerivedMessage[];
      const chat = toOpenAIChat(events);
      expect(chat).toEqual(readJson(new URL(`${name}.openai-chat.json`, golden)));
      expect(toOpenAIResponses(events)).toEqual(readJson(new URL(`${name}.openai-responses.json`, golden)));
      expect(toAnthropic(events)).toEqual(readJson(new URL(`${name}.anthropic.json`, golden)));
      // The derived messages alone give the same requests as the log.
      expect(toOpenAIChat(messages)).toEqual(chat);
      expect(toAnthropic(messages)).toEqual(toAnthropic(events));
    });
  }
});

function adapterFailure(run: () => unknown): SessionLogError {
  const error = thrown(run);
  expect(error).toBeInstanceOf(SessionLogError);
  return error as SessionLogError;
}

const call = (id: string, name = 'bash'): DerivedMessage => ({
  role: 'assistant',
  content: [{ type: 'tool_use', id, name, input: { command: 'ls' } }],
});
const result = (name: string, toolCallId?: string): DerivedMessage => ({
  role: 'tool',
  ...(toolCallId === undefined ? {} : { toolCallId }),
  toolName: name,
  content: 'ok',
  isError: false,
});

describe('tool pairing', () => {
  it('pairs results without an id FIFO by tool name within the turn', () => {
    const messages: DerivedMessage[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'a1', name: 'bash', input: {} },
          { type: 'tool_use', id: 's1', name: 'search', input: {} },
          { type: 'tool_use', id: 'a2', name: 'bash', input: {} },
        ],
      },
      result('search'),
      result('bash'),
      result('bash'),
    ];
    expect(toOpenAIChat(messages).flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : []))).toEqual([
      's1',
      'a1',
      'a2',
    ]);
    expect(
      toOpenAIResponses(messages).flatMap((item) => (item.type === 'function_call_output' ? [item.call_id] : [])),
    ).toEqual(['s1', 'a1', 'a2']);
    const anthropic = toAnthropic(messages);
    expect(anthropic.messages.at(-1)).toEqual({
      role: 'user',
      content: ['s1', 'a1', 'a2'].map((id) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' })),
    });
  });

  it('a result with no call is an error naming the seq', () => {
    const events = log([
      { type: 'user/message', data: { role: 'user', content: 'go' } },
      { type: 'tool/result', data: { turn: 1, step: 1, message: result('bash', 'nope') } },
    ]);
    for (const convert of [toOpenAIChat, toOpenAIResponses, toAnthropic]) {
      const error = adapterFailure(() => convert(events));
      expect(error.code).toBe('UNPAIRED_TOOL_MESSAGE');
      expect(error.seq).toBe(1);
      expect(error.path).toBe('messages[1]');
    }
    expect(adapterFailure(() => toOpenAIChat([result('bash')])).code).toBe('UNPAIRED_TOOL_MESSAGE');
  });

  it('a call left without a result when the conversation moves on is an error naming the seq', () => {
    const events = log([
      { type: 'user/message', data: { role: 'user', content: 'go' } },
      { type: 'assistant/message', data: { turn: 1, step: 1, message: call('c1') } },
      { type: 'user/message', data: { role: 'user', content: 'next' } },
    ]);
    const error = adapterFailure(() => toAnthropic(events));
    expect(error.code).toBe('UNPAIRED_TOOL_MESSAGE');
    expect(error.seq).toBe(1);
    // At the end the turn may still be open: the call is converted, awaiting its result.
    expect(toOpenAIChat(events.slice(0, 2)).at(-1)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'c1' }] });
  });

  it('a log that does not start at seq 0 is refused (its surface is unknown)', () => {
    const events = parseJsonl(readFileSync(new URL('calculator-turn.jsonl', fixtures), 'utf8'));
    const error = adapterFailure(() => toOpenAIChat(events.slice(3)));
    expect(error).toMatchObject({ code: 'UNSUPPORTED_MESSAGE', seq: 3 });
  });

  it('content a format cannot carry is UNSUPPORTED_MESSAGE', () => {
    const error = adapterFailure(() =>
      toOpenAIChat([{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: '', format: 'wav' } }] }]),
    );
    expect(error.code).toBe('UNSUPPORTED_MESSAGE');
    expect(error.path).toBe('messages[0]');
  });
});

describe('assistant reasoning', () => {
  const thinking = (text: string): DerivedMessage => ({
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: `why ${text}` },
      { type: 'text', text },
    ],
  });
  const conversation: DerivedMessage[] = [
    { role: 'user', content: 'q1' },
    thinking('a1'),
    { role: 'user', content: 'q2' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'need a tool' },
        { type: 'tool_use', id: 'c1', name: 'bash', input: {} },
      ],
    },
    result('bash', 'c1'),
    thinking('a2'),
  ];
  const reasoningOf = (mode: 'drop' | 'deepseek' | 'keep'): (string | undefined)[] =>
    toOpenAIChat(conversation, { reasoningContent: mode }).flatMap((m) =>
      m.role === 'assistant' ? [m.reasoning_content] : [],
    );

  it('DeepSeek: kept between two user messages where tools were called, dropped elsewhere', () => {
    expect(reasoningOf('deepseek')).toEqual([undefined, 'need a tool', 'why a2']);
    expect(reasoningOf('drop')).toEqual([undefined, undefined, undefined]);
    expect(reasoningOf('keep')).toEqual(['why a1', 'need a tool', 'why a2']);
  });

  it('Anthropic keeps signed thinking and drops unsigned reasoning', () => {
    const request = toAnthropic([
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'unsigned' },
          { type: 'thinking', thinking: 'signed', signature: 'sig' },
          { type: 'redacted_thinking', data: 'opaque' },
          { type: 'text', text: 'a' },
        ],
      },
    ]);
    expect(request.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'signed', signature: 'sig' },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'text', text: 'a' },
      ],
    });
  });
});

describe('importers', () => {
  it('refuse a tool message answering no call, and bad shapes', () => {
    const orphan = adapterFailure(() =>
      draftsFromOpenAIChat({ messages: [{ role: 'tool', tool_call_id: 'x', content: 'r' }] }),
    );
    expect(orphan.code).toBe('UNPAIRED_TOOL_MESSAGE');
    expect(orphan.path).toBe('messages[0]');
    const unanswered = adapterFailure(() =>
      draftsFromAnthropic({
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'bash', input: {} }] },
          { role: 'user', content: 'never mind' },
        ],
      }),
    );
    expect(unanswered.code).toBe('UNPAIRED_TOOL_MESSAGE');
    expect(unanswered.path).toBe('messages[1]');
    expect(adapterFailure(() => draftsFromAnthropic({ messages: [{ role: 'robot', content: 'x' }] })).code).toBe(
      'UNSUPPORTED_MESSAGE',
    );
    expect(
      adapterFailure(() =>
        draftsFromOpenAIChat({
          messages: [{ role: 'assistant', tool_calls: [{ id: 'c', function: { name: 'f', arguments: '{' } }] }],
        }),
      ).code,
    ).toBe('UNSUPPORTED_MESSAGE');
  });
});
