import type { DynamicToolUIPart, UIMessage } from 'ai';
import type { DerivedMessage } from '../../shared/events.ts';
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import { parseInput, record } from './json-input.ts';

type Part = UIMessage['parts'][number];
type AssistantUIPart =
  | { type: 'text'; text: string; state?: 'done' }
  | { type: 'reasoning'; text: string; state?: 'done'; providerMetadata?: { anthropic: { signature: string } } }
  | DynamicToolUIPart;

/**
 * The UI parts of one derived assistant message, in order: `content` as a string (one text part) or blocks (`text`,
 * `thinking` with its signature, `tool_use`), and `toolCalls: [{ id, name, arguments }]`; tool calls become
 * `dynamic-tool` parts with their input available (their results are added by the tool messages that follow).
 */
export function assistantParts(message: JsonObject): AssistantUIPart[] {
  const parts: AssistantUIPart[] = [];
  const content = message['content'];
  if (typeof content === 'string') {
    if (content !== '') parts.push({ type: 'text', text: content, state: 'done' });
  } else if (Array.isArray(content)) {
    for (const block of content) {
      const fields = record(block);
      if (fields === undefined) continue;
      if (fields['type'] === 'text' && typeof fields['text'] === 'string') {
        parts.push({ type: 'text', text: fields['text'], state: 'done' });
      } else if (fields['type'] === 'thinking' && typeof fields['thinking'] === 'string') {
        const signature = fields['signature'];
        parts.push({
          type: 'reasoning',
          text: fields['thinking'],
          state: 'done',
          ...(typeof signature === 'string' ? { providerMetadata: { anthropic: { signature } } } : {}),
        });
      } else if (fields['type'] === 'tool_use' && typeof fields['id'] === 'string') {
        parts.push(toolPart(fields['id'], String(fields['name']), fields['input'] ?? {}));
      }
    }
  }
  const calls = message['toolCalls'];
  if (Array.isArray(calls)) {
    for (const call of calls) {
      const fields = record(call);
      if (fields === undefined || typeof fields['id'] !== 'string') continue;
      const args = fields['arguments'];
      parts.push(toolPart(fields['id'], String(fields['name']), typeof args === 'string' ? parseInput(args) : {}));
    }
  }
  return parts;
}

function toolPart(toolCallId: string, toolName: string, input: unknown): DynamicToolUIPart {
  return { type: 'dynamic-tool', toolCallId, toolName, state: 'input-available', input };
}

function userParts(content: JsonValue): Part[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [{ type: 'text', text: JSON.stringify(content) }];
  const parts: Part[] = [];
  for (const block of content) {
    const fields = record(block);
    if (fields?.['type'] === 'text' && typeof fields['text'] === 'string') {
      parts.push({ type: 'text', text: fields['text'] });
    } else if (fields?.['type'] === 'file' && typeof fields['url'] === 'string') {
      const filename = fields['filename'];
      parts.push({
        type: 'file',
        url: fields['url'],
        mediaType: String(fields['mediaType']),
        ...(typeof filename === 'string' ? { filename } : {}),
      });
    }
  }
  return parts;
}

/** A derived user message (or a `user/message`'s data) as a UI message: its `id` field, else `fallbackId`. */
export function userUIMessage(message: JsonObject, fallbackId: string): UIMessage {
  const id = message['id'];
  return { id: typeof id === 'string' ? id : fallbackId, role: 'user', parts: userParts(message['content'] ?? '') };
}

/**
 * Derived messages (`subscription.messages`, `useSession().messages`) as the AI SDK's `UIMessage`s: a system or user
 * message each (a user message's id is its `id` field, which `HubChatTransport` stores, else `user-<index>`);
 * consecutive assistant and tool messages are one assistant message, a `step-start` part before each assistant
 * message, tool calls as `dynamic-tool` parts whose state the tool messages complete (`output-available`, or
 * `output-error` when `isError`). The inverse is `uiToDerivedMessages`.
 */
export function derivedToUIMessages(messages: readonly DerivedMessage[]): UIMessage[] {
  const out: UIMessage[] = [];
  let assistant: UIMessage | undefined;
  messages.forEach((message, index) => {
    if (message.role === 'system' || message.role === 'user') {
      assistant = undefined;
      out.push(
        message.role === 'system'
          ? { id: `system-${index}`, role: 'system', parts: [{ type: 'text', text: message.content }] }
          : userUIMessage(message, `user-${index}`),
      );
      return;
    }
    if (assistant === undefined) {
      assistant = { id: `assistant-${index}`, role: 'assistant', parts: [] };
      out.push(assistant);
    }
    if (message.role === 'assistant') {
      assistant.parts.push({ type: 'step-start' }, ...assistantParts(message));
      return;
    }
    const part = assistant.parts.find(
      (candidate): candidate is DynamicToolUIPart =>
        candidate.type === 'dynamic-tool' && candidate.toolCallId === message.toolCallId,
    );
    if (part === undefined) return;
    const done: DynamicToolUIPart = message.isError
      ? {
          type: 'dynamic-tool',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          state: 'output-error',
          input: part.input,
          errorText: typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
        }
      : {
          type: 'dynamic-tool',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          state: 'output-available',
          input: part.input,
          output: message.content,
        };
    assistant.parts[assistant.parts.indexOf(part)] = done;
  });
  return out;
}

function textOf(parts: readonly Part[]): string {
  return parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function json(value: unknown): JsonValue {
  return (value === undefined ? null : JSON.parse(JSON.stringify(value))) as JsonValue;
}

/**
 * `UIMessage`s as derived messages (what an agent builds its model request from): the inverse of
 * `derivedToUIMessages`. A user message keeps its UI id (`id`); its content is a string for one text part, else
 * blocks (`{ type: 'text', text }`, `{ type: 'file', mediaType, url, filename? }`). An assistant message is split at
 * its `step-start` parts, one derived assistant message per step: content a string for a single text part, else
 * blocks (`text`, `thinking` with the reasoning's Anthropic signature, `tool_use`), each finished tool call followed
 * by its tool message. Parts with no place in the log (sources, data parts, unfinished tool calls' outputs) are left out.
 */
export function uiToDerivedMessages(messages: readonly UIMessage[]): DerivedMessage[] {
  const out: DerivedMessage[] = [];
  for (const message of messages) {
    if (message.role === 'system') out.push({ role: 'system', content: textOf(message.parts) });
    else if (message.role === 'user') out.push({ role: 'user', content: userContent(message.parts), id: message.id });
    else out.push(...assistantMessages(message.parts));
  }
  return out;
}

function userContent(parts: readonly Part[]): JsonValue {
  const only = parts[0];
  if (parts.length === 1 && only?.type === 'text') return only.text;
  const blocks: JsonObject[] = [];
  for (const part of parts) {
    if (part.type === 'text') blocks.push({ type: 'text', text: part.text });
    else if (part.type === 'file') {
      blocks.push({
        type: 'file',
        mediaType: part.mediaType,
        url: part.url,
        ...(part.filename === undefined ? {} : { filename: part.filename }),
      });
    }
  }
  return blocks;
}

function assistantMessages(parts: readonly Part[]): DerivedMessage[] {
  const steps: Part[][] = [];
  for (const part of parts) {
    if (part.type === 'step-start' || steps.length === 0) steps.push([]);
    if (part.type !== 'step-start') steps[steps.length - 1]!.push(part);
  }
  return steps.flatMap(stepMessages);
}

function stepMessages(parts: readonly Part[]): DerivedMessage[] {
  const blocks: JsonObject[] = [];
  const results: DerivedMessage[] = [];
  for (const part of parts) {
    if (part.type === 'text') blocks.push({ type: 'text', text: part.text });
    else if (part.type === 'reasoning') {
      const signature = (part.providerMetadata?.['anthropic'] as { signature?: unknown } | undefined)?.signature;
      blocks.push({ type: 'thinking', thinking: part.text, ...(typeof signature === 'string' ? { signature } : {}) });
    } else if (part.type === 'dynamic-tool') {
      blocks.push({ type: 'tool_use', id: part.toolCallId, name: part.toolName, input: json(part.input) });
      if (part.state === 'output-available' || part.state === 'output-error') {
        const isError = part.state === 'output-error';
        results.push({
          role: 'tool',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          content: isError ? part.errorText : json(part.output),
          isError,
        });
      }
    }
  }
  const only = blocks[0];
  const content = blocks.length === 1 && only?.['type'] === 'text' ? (only['text'] as string) : blocks;
  return [{ role: 'assistant', content }, ...results];
}
