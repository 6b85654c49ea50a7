import { readHistory, type AdapterInput, type AssistantPart, type HistoryItem, type UserPart } from './history.ts';
import type {
  OpenAIChatAssistantMessage,
  OpenAIChatMessage,
  OpenAIChatTextPart,
  OpenAIChatToolCall,
  OpenAIChatUserPart,
} from './types.ts';

export interface OpenAIChatOptions {
  /**
   * What becomes of assistant reasoning (thinking blocks) — sent as `reasoning_content`, DeepSeek's field:
   * - `'drop'` (default): never sent (OpenAI has no such field);
   * - `'deepseek'`: kept where DeepSeek wants it back: on the assistant messages between two user messages when
   *   the model called tools there (thinking mode with tools answers 400 without it), dropped elsewhere;
   * - `'keep'`: kept on every assistant message that has reasoning.
   */
  readonly reasoningContent?: 'drop' | 'deepseek' | 'keep';
}

/**
 * Derived messages → a Chat Completions request's `messages` (OpenAI, and DeepSeek and other compatible APIs):
 * system/user messages, assistant messages with `content` (the text, or null) and `tool_calls` (ids, JSON-text
 * arguments), and a `tool` message per result with its `tool_call_id` (results without one paired FIFO by tool
 * name). Errors: see `readHistory`.
 */
export function toOpenAIChat(input: AdapterInput, options: OpenAIChatOptions = {}): OpenAIChatMessage[] {
  const items = readHistory(input);
  const keepReasoning = reasoningKeeper(items, options.reasoningContent ?? 'drop');
  return items.map((item, index): OpenAIChatMessage => {
    switch (item.role) {
      case 'system':
        return { role: 'system', content: item.content };
      case 'user':
        return { role: 'user', content: typeof item.content === 'string' ? item.content : item.content.map(userPart) };
      case 'assistant':
        return assistantMessage(item.content, keepReasoning(index));
      case 'tool':
        return { role: 'tool', tool_call_id: item.callId, content: toolContent(item.content) };
    }
  });
}

function userPart(part: UserPart): OpenAIChatUserPart {
  return part.kind === 'text' ? { type: 'text', text: part.text } : { type: 'image_url', image_url: { url: part.url } };
}

/** Tool messages take text only: text parts stay parts, anything else becomes one JSON text. */
function toolContent(content: string | readonly UserPart[]): string | OpenAIChatTextPart[] {
  if (typeof content === 'string') return content;
  if (content.every((part) => part.kind === 'text')) return content.map((part) => ({ type: 'text', text: part.text }));
  return JSON.stringify(content.map(userPart));
}

function assistantMessage(
  content: string | readonly AssistantPart[],
  keepReasoning: boolean,
): OpenAIChatAssistantMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  const texts: string[] = [];
  const reasoning: string[] = [];
  const calls: OpenAIChatToolCall[] = [];
  for (const part of content) {
    if (part.kind === 'text') texts.push(part.text);
    else if (part.kind === 'thinking') reasoning.push(part.thinking);
    else if (part.kind === 'tool-call') {
      calls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
    }
  }
  return {
    role: 'assistant',
    content: texts.length > 0 ? texts.join('') : calls.length > 0 ? null : '',
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    ...(keepReasoning && reasoning.length > 0 ? { reasoning_content: reasoning.join('') } : {}),
  };
}

/** Per item index: whether its reasoning is sent (see `OpenAIChatOptions.reasoningContent`). */
function reasoningKeeper(
  items: readonly HistoryItem[],
  mode: 'drop' | 'deepseek' | 'keep',
): (index: number) => boolean {
  if (mode !== 'deepseek') return () => mode === 'keep';
  // DeepSeek: a stretch between two user messages in which the model called a tool keeps its reasoning.
  const keep = new Set<number>();
  let stretch: number[] = [];
  let calledTools = false;
  const close = (): void => {
    if (calledTools) for (const index of stretch) keep.add(index);
    stretch = [];
    calledTools = false;
  };
  items.forEach((item, index) => {
    if (item.role === 'user') close();
    if (item.role !== 'assistant') return;
    stretch.push(index);
    if (typeof item.content !== 'string' && item.content.some((part) => part.kind === 'tool-call')) calledTools = true;
  });
  close();
  return (index) => keep.has(index);
}
