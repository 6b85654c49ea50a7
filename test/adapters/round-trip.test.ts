// Importing a provider request (draftsFrom*) and converting the session's derived messages back (to*) gives the
// same request, and the drafts form a valid lifecycle: fast-check over generated conversations.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { draftsFromAnthropic, draftsFromOpenAIChat, toAnthropic, toOpenAIChat } from '../../shared/adapters/index.ts';
import type {
  AnthropicMessage,
  AnthropicRequest,
  AnthropicUserBlock,
  OpenAIChatMessage,
} from '../../shared/adapters/wire.ts';
import { Session, validateLifecycle } from '../../shared/index.ts';
import type { JsonObject, KnownEventDraft, SessionEvent } from '../../shared/index.ts';

function append(drafts: readonly KnownEventDraft[]): readonly SessionEvent[] {
  const session = new Session();
  for (const draft of drafts) session.append(draft);
  return session.events;
}

const text = fc.string({ maxLength: 12 });
const toolName = fc.constantFrom('calculator', 'bash', 'search');
/** Arguments as compact JSON text (the adapters re-serialize arguments compactly). */
const argumentsValue = fc.dictionary(fc.constantFrom('a', 'b', 'query'), fc.oneof(fc.integer(), text, fc.boolean()), {
  maxKeys: 3,
});

interface Call {
  readonly id: string;
  readonly name: string;
  readonly input: JsonObject;
}

/** A step: the assistant's text/reasoning, its calls, the results' contents (in the order answered). */
const step = fc.record({
  text: fc.option(text, { nil: undefined }),
  reasoning: fc.option(fc.string({ minLength: 1, maxLength: 12 }), { nil: undefined }),
  calls: fc.array(fc.record({ name: toolName, input: argumentsValue }), { maxLength: 3 }),
  results: fc.array(text, { minLength: 3, maxLength: 3 }),
  errors: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  reversed: fc.boolean(),
});

/** A conversation: a system prompt or not, turns of a user message and steps; the last turn may stop anywhere. */
const conversation = fc.record({
  system: fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: undefined }),
  turns: fc.array(
    fc.record({
      user: fc.oneof(text, fc.array(text, { minLength: 1, maxLength: 2 })),
      steps: fc.array(step, { maxLength: 3 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
});

type Conversation = typeof conversation extends fc.Arbitrary<infer T> ? T : never;
type Step = Conversation['turns'][number]['steps'][number];

/** A turn's steps up to the first without calls (it answers: the turn ends there). */
function stepsOf(steps: readonly Step[]): readonly Step[] {
  const end = steps.findIndex((s) => s.calls.length === 0);
  return end < 0 ? steps : steps.slice(0, end + 1);
}

function openAIChat(conv: Conversation): OpenAIChatMessage[] {
  const messages: OpenAIChatMessage[] = [];
  if (conv.system !== undefined) messages.push({ role: 'system', content: conv.system });
  let callCount = 0;
  for (const turn of conv.turns) {
    messages.push({
      role: 'user',
      content: typeof turn.user === 'string' ? turn.user : turn.user.map((part) => ({ type: 'text', text: part })),
    });
    for (const s of stepsOf(turn.steps)) {
      const calls: Call[] = s.calls.map((call) => ({ id: `call_${callCount++}`, ...call }));
      messages.push({
        role: 'assistant',
        content: s.text ?? (calls.length > 0 ? null : ''),
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: JSON.stringify(call.input) },
              })),
            }
          : {}),
        ...(s.reasoning === undefined ? {} : { reasoning_content: s.reasoning }),
      });
      const answered = s.reversed ? [...calls].reverse() : calls;
      answered.forEach((call, index) => {
        messages.push({ role: 'tool', tool_call_id: call.id, content: s.results[index] ?? '' });
      });
    }
  }
  return messages;
}

function anthropic(conv: Conversation): AnthropicRequest {
  const messages: AnthropicMessage[] = [];
  let pendingResults: AnthropicUserBlock[] = [];
  let callCount = 0;
  for (const turn of conv.turns) {
    const userBlocks: AnthropicUserBlock[] =
      typeof turn.user === 'string'
        ? [{ type: 'text', text: turn.user }]
        : turn.user.map((part) => ({ type: 'text' as const, text: part }));
    if (pendingResults.length > 0) messages.push({ role: 'user', content: [...pendingResults, ...userBlocks] });
    else messages.push({ role: 'user', content: typeof turn.user === 'string' ? turn.user : userBlocks });
    pendingResults = [];
    for (const s of stepsOf(turn.steps)) {
      if (pendingResults.length > 0) messages.push({ role: 'user', content: pendingResults });
      pendingResults = [];
      const calls: Call[] = s.calls.map((call) => ({ id: `toolu_${callCount++}`, ...call }));
      messages.push({
        role: 'assistant',
        content: [
          ...(s.reasoning === undefined
            ? []
            : [{ type: 'thinking' as const, thinking: s.reasoning, signature: `sig-${s.reasoning.length}` }]),
          ...(s.text === undefined ? [] : [{ type: 'text' as const, text: s.text }]),
          ...calls.map((call) => ({ type: 'tool_use' as const, id: call.id, name: call.name, input: call.input })),
        ],
      });
      const answered = s.reversed ? [...calls].reverse() : calls;
      pendingResults = answered.map((call, index) => ({
        type: 'tool_result' as const,
        tool_use_id: call.id,
        content: s.results[index] ?? '',
        ...(s.errors[index] === true ? { is_error: true } : {}),
      }));
    }
  }
  if (pendingResults.length > 0) messages.push({ role: 'user', content: pendingResults });
  return { ...(conv.system === undefined ? {} : { system: conv.system }), messages };
}

/**
 * Requests the Messages API takes: user and assistant alternate (toAnthropic merges same-role neighbours), and no
 * assistant message is empty (it never reaches the derived messages).
 */
function isWellFormed(request: AnthropicRequest): boolean {
  return request.messages.every(
    (message, index) =>
      message.role !== request.messages[index - 1]?.role && (message.role === 'user' || message.content.length > 0),
  );
}

describe('draftsFrom* → derived messages → to*', () => {
  it('OpenAI Chat (DeepSeek reasoning kept): the same messages, a valid lifecycle', () => {
    fc.assert(
      fc.property(conversation, (conv) => {
        const messages = openAIChat(conv);
        const events = append(draftsFromOpenAIChat({ messages }));
        expect(validateLifecycle(events)).toEqual([]);
        expect(toOpenAIChat(events, { reasoningContent: 'keep' })).toEqual(messages);
      }),
      { numRuns: 200 },
    );
  });

  it('Anthropic: the same { system, messages }, a valid lifecycle', () => {
    fc.assert(
      fc.property(conversation, (conv) => {
        const request = anthropic(conv);
        fc.pre(isWellFormed(request));
        const events = append(draftsFromAnthropic(request));
        expect(validateLifecycle(events)).toEqual([]);
        expect(toAnthropic(events)).toEqual(request);
      }),
      { numRuns: 200 },
    );
  });

  it('a finished conversation imports as a complete lifecycle; one awaiting the model leaves its turn open', () => {
    const done = append(
      draftsFromOpenAIChat({
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
        ],
      }),
    );
    expect(validateLifecycle(done, { complete: true })).toEqual([]);
    const awaiting = append(draftsFromOpenAIChat({ messages: [{ role: 'user', content: 'hi' }] }));
    expect(awaiting.map((event) => event.type)).toEqual(['turn/start', 'user/message']);
  });
});
