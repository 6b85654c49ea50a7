import type { KnownEventDraft } from '../events.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { adapterError, type Where } from './adapter-error.ts';
import { isObject } from '../is-object.ts';
import { DraftBuilder } from './draft-builder.ts';
import type { AnthropicParamsLike } from './types.ts';

/**
 * A Messages API request (`{ system, messages }`) → the drafts of a session holding it, as a valid lifecycle (see
 * `DraftBuilder`): `system` becomes a `system/message`; a user message opens a turn, except that its `tool_result`
 * blocks answer the open calls (a `tool/result` each, `isError` from `is_error`) and any other blocks after them
 * stay in that turn as a `user/message`; each assistant message is a step keeping its `text`, `thinking` (with
 * signature), `redacted_thinking` and `tool_use` blocks, with a `tool/call` per `tool_use`. Append the drafts to an
 * empty session; its derived messages convert back (`toAnthropic`) to the same request. A bad shape throws
 * UNSUPPORTED_MESSAGE, a result answering no call or a call left unanswered UNPAIRED_TOOL_MESSAGE.
 */
export function draftsFromAnthropic(params: AnthropicParamsLike): KnownEventDraft[] {
  const builder = new DraftBuilder();
  const system = params.system as JsonValue | undefined;
  if (system !== undefined && system !== null) {
    const text = systemText(system);
    if (text === undefined)
      throw adapterError('UNSUPPORTED_MESSAGE', { index: 0 }, 'system must be text or text blocks');
    builder.system(text);
  }
  const messages = params.messages as readonly unknown[];
  if (!Array.isArray(messages)) throw adapterError('UNSUPPORTED_MESSAGE', { index: 0 }, 'messages must be an array');
  messages.forEach((raw, index) => {
    const at = { index };
    const message = raw as JsonValue;
    if (!isObject(message)) throw adapterError('UNSUPPORTED_MESSAGE', at, 'a message must be an object');
    const content = message['content'];
    if (typeof content !== 'string' && !Array.isArray(content)) {
      throw adapterError('UNSUPPORTED_MESSAGE', at, 'content must be a string or an array of blocks');
    }
    if (message['role'] === 'user') user(builder, content, at);
    else if (message['role'] === 'assistant') assistant(builder, content, at);
    else throw adapterError('UNSUPPORTED_MESSAGE', at, `unsupported role ${JSON.stringify(message['role'])}`);
  });
  return builder.finish();
}

function systemText(system: JsonValue): string | undefined {
  if (typeof system === 'string') return system;
  if (!Array.isArray(system)) return undefined;
  const texts = (system as readonly JsonValue[]).map((block) => (isObject(block) ? block['text'] : undefined));
  return texts.every((text) => typeof text === 'string') ? texts.join('\n\n') : undefined;
}

function user(builder: DraftBuilder, content: string | readonly JsonValue[], at: Where): void {
  if (typeof content === 'string') {
    builder.user(content);
    return;
  }
  const rest: JsonValue[] = [];
  let answered = false;
  for (const block of content) {
    if (!isObject(block) || block['type'] !== 'tool_result') {
      rest.push(block);
      continue;
    }
    const id = block['tool_use_id'];
    if (typeof id !== 'string') throw adapterError('UNSUPPORTED_MESSAGE', at, 'tool_use_id must be a string');
    builder.toolResult(id, block['content'] ?? '', block['is_error'] === true, at);
    answered = true;
  }
  if (rest.length === 0) return;
  if (answered) builder.userInTurn(rest);
  else builder.user(rest);
}

function assistant(builder: DraftBuilder, content: string | readonly JsonValue[], at: Where): void {
  if (typeof content === 'string') {
    builder.assistant({ role: 'assistant', content }, [], at);
    return;
  }
  const blocks: JsonObject[] = [];
  const calls: { id: string; name: string; arguments: string }[] = [];
  for (const block of content) {
    const kept = isObject(block) ? assistantBlock(block) : undefined;
    if (kept === undefined) throw adapterError('UNSUPPORTED_MESSAGE', at, 'unsupported assistant block');
    blocks.push(kept);
    if (kept['type'] === 'tool_use') {
      calls.push({ id: kept['id'] as string, name: kept['name'] as string, arguments: JSON.stringify(kept['input']) });
    }
  }
  builder.assistant({ role: 'assistant', content: blocks }, calls, at);
}

/** The block reduced to the fields the log keeps, or undefined when it is not a supported, well-formed block. */
function assistantBlock(block: JsonObject): JsonObject | undefined {
  const { type } = block;
  if (type === 'text' && typeof block['text'] === 'string') return { type, text: block['text'] };
  if (type === 'thinking' && typeof block['thinking'] === 'string' && typeof block['signature'] === 'string') {
    return { type, thinking: block['thinking'], signature: block['signature'] };
  }
  if (type === 'redacted_thinking' && typeof block['data'] === 'string') return { type, data: block['data'] };
  const { id, name, input } = block;
  if (type === 'tool_use' && typeof id === 'string' && id !== '' && typeof name === 'string' && name !== '') {
    return { type, id, name, input: input ?? {} };
  }
  return undefined;
}
