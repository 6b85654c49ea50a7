// The provider request shapes the adapters produce and read. They are declared here, structurally, so that
// `session-hub/adapters` needs no provider SDK at run time or to type-check; test/adapters/sdk-types.test.ts checks
// that they are assignable to the `openai` and `@anthropic-ai/sdk` request param types. Arrays are mutable on
// purpose: the SDKs' param types use mutable arrays, and every array here is freshly built.
import type { JsonValue } from '../json.ts';

// ---- OpenAI Chat Completions (and DeepSeek, which speaks it) ----

export interface OpenAIChatTextPart {
  type: 'text';
  text: string;
}

export interface OpenAIChatImagePart {
  type: 'image_url';
  image_url: { url: string };
}

export type OpenAIChatUserPart = OpenAIChatTextPart | OpenAIChatImagePart;

export interface OpenAIChatSystemMessage {
  role: 'system';
  content: string;
}

export interface OpenAIChatUserMessage {
  role: 'user';
  content: string | OpenAIChatUserPart[];
}

export interface OpenAIChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface OpenAIChatAssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: OpenAIChatToolCall[];
  /** DeepSeek's chain of thought (only with the `reasoningContent` option). */
  reasoning_content?: string;
}

export interface OpenAIChatToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string | OpenAIChatTextPart[];
}

/** One element of a Chat Completions request's `messages` (a `ChatCompletionMessageParam`). */
export type OpenAIChatMessage =
  OpenAIChatSystemMessage | OpenAIChatUserMessage | OpenAIChatAssistantMessage | OpenAIChatToolMessage;

// ---- OpenAI Responses API ----

export interface OpenAIResponsesInputText {
  type: 'input_text';
  text: string;
}

export interface OpenAIResponsesInputImage {
  type: 'input_image';
  image_url: string;
  detail: 'auto';
}

export interface OpenAIResponsesMessage {
  type: 'message';
  role: 'system' | 'user' | 'assistant';
  content: string | (OpenAIResponsesInputText | OpenAIResponsesInputImage)[];
}

export interface OpenAIResponsesFunctionCall {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
}

export interface OpenAIResponsesFunctionCallOutput {
  type: 'function_call_output';
  call_id: string;
  output: string;
}

/** One element of a Responses API request's `input` (a `ResponseInputItem`). */
export type OpenAIResponsesInputItem =
  OpenAIResponsesMessage | OpenAIResponsesFunctionCall | OpenAIResponsesFunctionCallOutput;

// ---- Anthropic Messages API ----

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
}

export interface AnthropicImageBlock {
  type: 'image';
  source:
    | { type: 'base64'; media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'; data: string }
    | { type: 'url'; url: string };
}

export interface AnthropicThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface AnthropicRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: JsonValue;
}

export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string | (AnthropicTextBlock | AnthropicImageBlock)[];
  is_error?: boolean;
}

export type AnthropicUserBlock = AnthropicTextBlock | AnthropicImageBlock | AnthropicToolResultBlock;
export type AnthropicAssistantBlock =
  AnthropicTextBlock | AnthropicThinkingBlock | AnthropicRedactedThinkingBlock | AnthropicToolUseBlock;

export interface AnthropicUserMessage {
  role: 'user';
  content: string | AnthropicUserBlock[];
}

export interface AnthropicAssistantMessage {
  role: 'assistant';
  content: string | AnthropicAssistantBlock[];
}

/** One element of a Messages API request's `messages` (a `MessageParam`). */
export type AnthropicMessage = AnthropicUserMessage | AnthropicAssistantMessage;

/** The `system` and `messages` of a Messages API request (`system` only when the history has a system prompt). */
export interface AnthropicRequest {
  system?: string;
  messages: AnthropicMessage[];
}

// ---- What the importers read: loose on purpose, so the SDKs' own param objects are accepted as they are ----

/** A Chat Completions message as a caller holds it (a `ChatCompletionMessageParam`, or DeepSeek's). */
export interface OpenAIChatMessageLike {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_calls?: readonly unknown[] | null | undefined;
  readonly tool_call_id?: unknown;
  readonly reasoning_content?: unknown;
}

/** A Chat Completions request (only `messages` is read). */
export interface OpenAIChatParamsLike {
  readonly messages: readonly OpenAIChatMessageLike[];
}

/** A Messages API message as a caller holds it (a `MessageParam`). */
export interface AnthropicMessageLike {
  readonly role: string;
  readonly content: unknown;
}

/** A Messages API request (only `system` and `messages` are read). */
export interface AnthropicParamsLike {
  readonly system?: unknown;
  readonly messages: readonly AnthropicMessageLike[];
}
