import { readHistory, type AdapterInput, type AssistantPart, type UserPart } from './history.ts';
import type {
  AnthropicAssistantBlock,
  AnthropicImageBlock,
  AnthropicMessage,
  AnthropicRequest,
  AnthropicTextBlock,
  AnthropicUserBlock,
} from './types.ts';

const MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
type MediaType = (typeof MEDIA_TYPES)[number];
const DATA_URL = /^data:([^;,]+);base64,(.*)$/su;

/**
 * Derived messages → `{ system, messages }` for the Messages API: the system messages joined into `system`;
 * user/assistant alternation (consecutive same-role content merged into one message); `tool_use` blocks in the
 * assistant message; `tool_result` blocks (paired by id, else FIFO by tool name; `is_error` when it failed) at the
 * start of the following user message, consecutive results merged; thinking blocks with their signatures kept
 * (unsigned reasoning, e.g. DeepSeek's, cannot be sent back and is dropped). Errors: see `readHistory`.
 */
export function toAnthropic(input: AdapterInput): AnthropicRequest {
  const system: string[] = [];
  const messages: AnthropicMessage[] = [];
  const add = (
    role: 'user' | 'assistant',
    content: string | (AnthropicUserBlock | AnthropicAssistantBlock)[],
  ): void => {
    if (Array.isArray(content) && content.length === 0) return; // all its blocks were dropped
    const last = messages.at(-1);
    if (last?.role !== role) {
      messages.push({ role, content } as AnthropicMessage);
      return;
    }
    const blocks = [...asBlocks<AnthropicUserBlock | AnthropicAssistantBlock>(last.content), ...asBlocks(content)];
    messages[messages.length - 1] = { role, content: blocks } as AnthropicMessage;
  };
  for (const item of readHistory(input)) {
    switch (item.role) {
      case 'system':
        system.push(item.content);
        break;
      case 'user':
        add('user', typeof item.content === 'string' ? item.content : item.content.map(userBlock));
        break;
      case 'assistant':
        add('assistant', typeof item.content === 'string' ? item.content : assistantBlocks(item.content));
        break;
      case 'tool':
        add('user', [
          {
            type: 'tool_result',
            tool_use_id: item.callId,
            content: typeof item.content === 'string' ? item.content : item.content.map(userBlock),
            ...(item.isError ? { is_error: true } : {}),
          },
        ]);
        break;
    }
  }
  return { ...(system.length > 0 ? { system: system.join('\n\n') } : {}), messages };
}

function asBlocks<T>(content: string | readonly T[]): (T | AnthropicTextBlock)[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : [...content];
}

function userBlock(part: UserPart): AnthropicTextBlock | AnthropicImageBlock {
  if (part.kind === 'text') return { type: 'text', text: part.text };
  const inline = DATA_URL.exec(part.url);
  const mediaType = inline?.[1];
  if (inline !== null && isMediaType(mediaType)) {
    return { type: 'image', source: { type: 'base64', media_type: mediaType, data: inline[2] ?? '' } };
  }
  return { type: 'image', source: { type: 'url', url: part.url } };
}

function isMediaType(value: string | undefined): value is MediaType {
  return (MEDIA_TYPES as readonly (string | undefined)[]).includes(value);
}

function assistantBlocks(parts: readonly AssistantPart[]): AnthropicAssistantBlock[] {
  const blocks: AnthropicAssistantBlock[] = [];
  for (const part of parts) {
    switch (part.kind) {
      case 'text':
        blocks.push({ type: 'text', text: part.text });
        break;
      case 'thinking':
        if (part.signature !== undefined) {
          blocks.push({ type: 'thinking', thinking: part.thinking, signature: part.signature });
        }
        break;
      case 'redacted-thinking':
        blocks.push({ type: 'redacted_thinking', data: part.data });
        break;
      case 'tool-call':
        blocks.push({ type: 'tool_use', id: part.id, name: part.name, input: part.input });
        break;
    }
  }
  return blocks;
}
