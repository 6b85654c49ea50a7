import type { AssistantMessage, KnownEventDraft } from '../events.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { adapterError, type Where } from './adapter-error.ts';
import { isObject } from '../is-object.ts';
import { DraftBuilder } from './draft-builder.ts';
import { parseArguments } from './history.ts';
import type { OpenAIChatParamsLike } from './types.ts';

/**
 * A Chat Completions request (its `messages`, e.g. a conversation kept by another tool) → the drafts of a session
 * holding it, as a valid lifecycle (see `DraftBuilder`): `system`/`developer` messages become `system/message`s,
 * each user message opens a turn, each assistant message is a step whose content becomes blocks (a `thinking`
 * block for DeepSeek's `reasoning_content`, a `text` block, a `tool_use` block per tool call) with a `tool/call`
 * per call, and each `tool` message a `tool/result` of its call. Append the drafts to an empty session; its derived
 * messages convert back (`toOpenAIChat`, with `reasoningContent: 'keep'` for reasoning) to the same messages, tool
 * call arguments re-serialized as compact JSON. A bad shape throws UNSUPPORTED_MESSAGE, a tool message answering
 * no call or a call left unanswered UNPAIRED_TOOL_MESSAGE (`path: messages[i]`).
 */
export function draftsFromOpenAIChat(params: OpenAIChatParamsLike): KnownEventDraft[] {
  const builder = new DraftBuilder();
  const messages = params.messages as readonly unknown[];
  if (!Array.isArray(messages)) throw adapterError('UNSUPPORTED_MESSAGE', { index: 0 }, 'messages must be an array');
  messages.forEach((raw, index) => {
    const at = { index };
    const message = raw as JsonValue;
    if (!isObject(message)) throw adapterError('UNSUPPORTED_MESSAGE', at, 'a message must be an object');
    switch (message['role']) {
      case 'system':
      case 'developer':
        builder.system(textOf(message['content'], at));
        break;
      case 'user':
        builder.user(userContent(message['content'], at));
        break;
      case 'assistant':
        assistant(builder, message, at);
        break;
      case 'tool': {
        const callId = message['tool_call_id'];
        if (typeof callId !== 'string') throw adapterError('UNSUPPORTED_MESSAGE', at, 'tool_call_id must be a string');
        builder.toolResult(callId, userContent(message['content'], at), false, at);
        break;
      }
      default:
        throw adapterError('UNSUPPORTED_MESSAGE', at, `unsupported role ${JSON.stringify(message['role'])}`);
    }
  });
  return builder.finish();
}

function assistant(builder: DraftBuilder, message: JsonObject, at: Where): void {
  const blocks: JsonObject[] = [];
  const reasoning = message['reasoning_content'];
  if (typeof reasoning === 'string' && reasoning !== '') blocks.push({ type: 'thinking', thinking: reasoning });
  const content = message['content'];
  if (content !== undefined && content !== null) blocks.push({ type: 'text', text: textOf(content, at) });
  const calls = toolCalls(message['tool_calls'], at);
  for (const call of calls) {
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: parseArguments(call.arguments, at) });
  }
  const assistantMessage: AssistantMessage = { role: 'assistant', content: blocks };
  builder.assistant(assistantMessage, calls, at);
}

function toolCalls(value: JsonValue | undefined, at: Where): { id: string; name: string; arguments: string }[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw adapterError('UNSUPPORTED_MESSAGE', at, 'tool_calls must be an array');
  return (value as readonly JsonValue[]).map((call) => {
    const fn = isObject(call) ? call['function'] : undefined;
    const id = isObject(call) ? call['id'] : undefined;
    if (!isObject(fn) || typeof id !== 'string' || id === '') {
      throw adapterError('UNSUPPORTED_MESSAGE', at, 'a tool call needs an id and a function');
    }
    const { name, arguments: args } = fn;
    if (typeof name !== 'string' || name === '' || typeof args !== 'string') {
      throw adapterError('UNSUPPORTED_MESSAGE', at, 'a tool call function needs a name and JSON-text arguments');
    }
    return { id, name, arguments: args };
  });
}

/** Text content: a string, or text parts joined. */
function textOf(content: JsonValue | undefined, at: Where): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const texts = (content as readonly JsonValue[]).map((part) =>
      isObject(part) && (part['type'] === 'text' || part['type'] === 'refusal')
        ? (part['text'] ?? part['refusal'])
        : undefined,
    );
    if (texts.every((text) => typeof text === 'string')) return texts.join('');
  }
  throw adapterError('UNSUPPORTED_MESSAGE', at, 'content must be text or text parts');
}

/** User (or tool) content as given: a string or an array of parts. */
function userContent(content: JsonValue | undefined, at: Where): JsonValue {
  if (typeof content === 'string' || Array.isArray(content)) return content;
  throw adapterError('UNSUPPORTED_MESSAGE', at, 'content must be a string or an array of parts');
}
