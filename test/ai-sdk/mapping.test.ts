import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { derivedToUIMessages, logToUIMessages, TurnChunker, uiToDerivedMessages } from '../../client/ai-sdk/index.ts';
import { Session, type DerivedMessage, type SessionEvent } from '../../shared/index.ts';

/** Derived messages in the mapping's canonical forms (what `uiToDerivedMessages` writes). */
const derived: DerivedMessage[] = [
  { role: 'system', content: 'You are a calculator.' },
  { role: 'user', content: 'What is 2 + 2?', id: 'u1' },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'Add them.', signature: 'sig-1' },
      { type: 'text', text: 'Let me add.' },
      { type: 'tool_use', id: 'c1', name: 'add', input: { a: 2, b: 2 } },
      { type: 'tool_use', id: 'c2', name: 'check', input: { value: 4 } },
    ],
  },
  { role: 'tool', toolCallId: 'c1', toolName: 'add', content: '4', isError: false },
  { role: 'tool', toolCallId: 'c2', toolName: 'check', content: 'checker offline', isError: true },
  { role: 'assistant', content: '4.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'And this?' },
      { type: 'file', mediaType: 'image/png', url: 'data:image/png;base64,AAAA', filename: 'sum.png' },
    ],
    id: 'u2',
  },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'c3', name: 'ocr', input: {} }] },
  { role: 'tool', toolCallId: 'c3', toolName: 'ocr', content: { digits: [2, 2] }, isError: false },
  { role: 'assistant', content: 'Also 4.' },
];

describe('derived messages ↔ UIMessage', () => {
  it('maps derived messages to UI messages: one assistant message per run of steps, tool results on their calls', () => {
    const ui = derivedToUIMessages(derived);
    expect(ui.map((message) => [message.role, message.id])).toEqual([
      ['system', 'system-0'],
      ['user', 'u1'],
      ['assistant', 'assistant-2'],
      ['user', 'u2'],
      ['assistant', 'assistant-7'],
    ]);
    expect(ui[2]!.parts).toEqual([
      { type: 'step-start' },
      { type: 'reasoning', text: 'Add them.', state: 'done', providerMetadata: { anthropic: { signature: 'sig-1' } } },
      { type: 'text', text: 'Let me add.', state: 'done' },
      {
        type: 'dynamic-tool',
        toolCallId: 'c1',
        toolName: 'add',
        state: 'output-available',
        input: { a: 2, b: 2 },
        output: '4',
      },
      {
        type: 'dynamic-tool',
        toolCallId: 'c2',
        toolName: 'check',
        state: 'output-error',
        input: { value: 4 },
        errorText: 'checker offline',
      },
      { type: 'step-start' },
      { type: 'text', text: '4.', state: 'done' },
    ]);
  });

  it('round-trips derived → UI → derived', () => {
    expect(uiToDerivedMessages(derivedToUIMessages(derived))).toEqual(derived);
  });

  it('round-trips UI → derived → UI', () => {
    const ui = derivedToUIMessages(derived);
    expect(derivedToUIMessages(uiToDerivedMessages(ui))).toEqual(ui);
  });

  it('reads the other assistant form (toolCalls with JSON text arguments) as tool parts', () => {
    const ui = derivedToUIMessages([
      { role: 'assistant', content: 'On it.', toolCalls: [{ id: 'c9', name: 'add', arguments: '{"a":1}' }] },
    ]);
    expect(ui[0]!.parts).toEqual([
      { type: 'step-start' },
      { type: 'text', text: 'On it.', state: 'done' },
      { type: 'dynamic-tool', toolCallId: 'c9', toolName: 'add', state: 'input-available', input: { a: 1 } },
    ]);
  });
});

/** A log with one finished turn (streamed text and reasoning, a tool call and its result) and one stopped turn. */
function chatLog(): SessionEvent[] {
  const session = new Session();
  const append = session.append.bind(session) as (draft: object) => SessionEvent;
  append({ type: 'user/message', data: { role: 'user', content: 'What is 2 + 2?', id: 'u1' } });
  append({ type: 'turn/start', data: { turn: 1 } });
  append({ type: 'step/start', data: { turn: 1, step: 1 } });
  const chunks = [
    append({ type: 'assistant/chunk', data: { turn: 1, step: 1, chunk: { type: 'reasoning-delta', text: 'Add ' } } }),
    append({ type: 'assistant/chunk', data: { turn: 1, step: 1, chunk: { type: 'reasoning-delta', text: 'them.' } } }),
    append({ type: 'assistant/chunk', data: { turn: 1, step: 1, chunk: { type: 'text-delta', text: 'Let me ' } } }),
    append({ type: 'assistant/chunk', data: { turn: 1, step: 1, chunk: 'add.' } }),
    append({
      type: 'assistant/chunk',
      data: {
        turn: 1,
        step: 1,
        chunk: { type: 'tool-call-delta', index: 0, id: 'c1', name: 'add', arguments: '{"a":2,' },
      },
    }),
    append({
      type: 'assistant/chunk',
      data: { turn: 1, step: 1, chunk: { type: 'tool-call-delta', index: 0, arguments: '"b":2}' } },
    }),
  ];
  append({
    type: 'assistant/message',
    sourceEventSeqs: chunks.map((chunk) => chunk.seq),
    data: {
      turn: 1,
      step: 1,
      message: {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Add them.' },
          { type: 'text', text: 'Let me add.' },
          { type: 'tool_use', id: 'c1', name: 'add', input: { a: 2, b: 2 } },
        ],
      },
    },
  });
  append({ type: 'tool/call', data: { turn: 1, step: 1, callId: 'c1', name: 'add', arguments: '{"a":2,"b":2}' } });
  append({
    type: 'tool/result',
    data: {
      turn: 1,
      step: 1,
      message: { role: 'tool', toolCallId: 'c1', toolName: 'add', content: '4', isError: false },
    },
  });
  append({ type: 'step/end', data: { turn: 1, step: 1 } });
  append({ type: 'step/start', data: { turn: 1, step: 2 } });
  append({ type: 'assistant/message', data: { turn: 1, step: 2, message: { role: 'assistant', content: '4.' } } });
  append({ type: 'step/end', data: { turn: 1, step: 2 } });
  append({ type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } });
  append({ type: 'user/message', data: { role: 'user', content: 'Count to ten.', id: 'u2' } });
  append({ type: 'turn/start', data: { turn: 2 } });
  append({ type: 'step/start', data: { turn: 2, step: 1 } });
  append({ type: 'assistant/chunk', data: { turn: 2, step: 1, chunk: { type: 'text-delta', text: 'One, two' } } });
  append({ type: 'step/end', data: { turn: 2, step: 1 } });
  append({ type: 'turn/end', data: { turn: 2, reason: { kind: 'interrupted' } } });
  return [...session.events];
}

function chunksOfTurn(events: readonly SessionEvent[], turn: number): UIMessageChunk[] {
  const chunker = new TurnChunker();
  const start = events.findIndex(
    (event) => event.type === 'turn/start' && (event.data as { turn: number }).turn === turn,
  );
  const chunks: UIMessageChunk[] = [];
  for (const event of events.slice(start)) {
    chunks.push(...chunker.push(event));
    if (chunker.finished) break;
  }
  return chunks;
}

async function readWithTheSdk(chunks: readonly UIMessageChunk[]): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream, terminateOnError: true })) last = message;
  return last!;
}

describe('the log as UI messages and UI message chunks', () => {
  it('shows each user message and each turn (a stopped one with what it streamed), with the turn status', () => {
    const ui = logToUIMessages(chatLog());
    expect(ui.map((message) => [message.role, message.id, message.metadata])).toEqual([
      ['user', 'u1', undefined],
      ['assistant', 'turn-1', { turn: 1, status: 'completed' }],
      ['user', 'u2', undefined],
      ['assistant', 'turn-2', { turn: 2, status: 'interrupted' }],
    ]);
    expect(ui[3]!.parts).toEqual([{ type: 'step-start' }, { type: 'text', text: 'One, two', state: 'done' }]);
  });

  it("is what the AI SDK's own stream reader makes of the turn's chunks", async () => {
    const events = chatLog();
    const ui = logToUIMessages(events);
    for (const [turn, index] of [
      [1, 1],
      [2, 3],
    ] as const) {
      const read = await readWithTheSdk(chunksOfTurn(events, turn));
      expect(read.id).toBe(ui[index]!.id);
      expect(read.metadata).toEqual(ui[index]!.metadata);
      expect(uiToDerivedMessages([read])).toEqual(uiToDerivedMessages([ui[index]!]));
    }
  });

  it('maps a finished turn to what its derived messages map to', () => {
    const events = chatLog();
    const session = Session.fromLog(events);
    const fromDerived = derivedToUIMessages(session.deriveMessages());
    const fromLog = logToUIMessages(events);
    expect(uiToDerivedMessages([fromLog[1]!])).toEqual(uiToDerivedMessages([fromDerived[1]!]));
  });
});
