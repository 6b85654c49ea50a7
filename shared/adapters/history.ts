import { deriveSourcedMessages } from '../derive-messages.ts';
import type { DerivedMessage, SessionEvent } from '../events.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { adapterError, type Where } from './adapter-error.ts';
import { isObject } from '../is-object.ts';

/** What the `to*` adapters take: derived messages (`session.messages`), or a whole log (then errors name seqs). */
export type AdapterInput = readonly DerivedMessage[] | readonly SessionEvent[];

/** A piece of user (or tool output) content: text, or an image by URL (`data:` URLs for inline images). */
export type UserPart =
  { readonly kind: 'text'; readonly text: string } | { readonly kind: 'image'; readonly url: string };

/** A piece of an assistant message. `signature` is Anthropic's (absent for DeepSeek reasoning). */
export type AssistantPart =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'thinking'; readonly thinking: string; readonly signature: string | undefined }
  | { readonly kind: 'redacted-thinking'; readonly data: string }
  | ToolCallPart;

export interface ToolCallPart {
  readonly kind: 'tool-call';
  readonly id: string;
  readonly name: string;
  readonly input: JsonValue;
  /** `input` as JSON text. */
  readonly arguments: string;
}

/** A derived message read into a provider-neutral form, tool results paired with their calls. */
export type HistoryItem =
  | { readonly role: 'system'; readonly content: string; readonly at: Where }
  | { readonly role: 'user'; readonly content: string | readonly UserPart[]; readonly at: Where }
  | { readonly role: 'assistant'; readonly content: string | readonly AssistantPart[]; readonly at: Where }
  | {
      readonly role: 'tool';
      /** The id of the call this answers (its own `toolCallId`, or found by the FIFO rule). */
      readonly callId: string;
      readonly toolName: string;
      readonly content: string | readonly UserPart[];
      readonly isError: boolean;
      readonly at: Where;
    };

/**
 * Reads derived messages (or a log's) into history items, pairing each tool result with its call: by
 * `toolCallId`, else the oldest unanswered call of the same tool name (the contract's FIFO rule). A result with no
 * call, or a call still unanswered when the next user or assistant message comes, throws UNPAIRED_TOOL_MESSAGE;
 * calls unanswered at the end are allowed (the turn is still open). Content no provider format can carry throws
 * UNSUPPORTED_MESSAGE. Errors name the message (`path: messages[i]`) and, given a log, its `seq`.
 */
export function readHistory(input: AdapterInput): HistoryItem[] {
  const first = input[0] as object | undefined;
  if (isLog(input) && first !== undefined && (first as SessionEvent).seq !== 0) {
    const seq = (first as SessionEvent).seq;
    throw adapterError('UNSUPPORTED_MESSAGE', { index: 0, seq }, 'a log must start at seq 0 to derive its messages');
  }
  const sourced = isLog(input)
    ? deriveSourcedMessages(input).map((entry, index) => ({ message: entry.message, at: { index, seq: entry.seq } }))
    : input.map((message, index) => ({ message, at: { index } }));
  const items: HistoryItem[] = [];
  const pending: { readonly id: string; readonly name: string; readonly at: Where }[] = [];
  for (const { message, at } of sourced) {
    const item = readMessage(message as unknown as JsonValue, at);
    if (item.role === 'user' || item.role === 'assistant') {
      const open = pending[0];
      if (open !== undefined) {
        throw adapterError('UNPAIRED_TOOL_MESSAGE', open.at, `tool call ${open.id} (${open.name}) has no result`);
      }
    }
    if (item.role === 'assistant' && typeof item.content !== 'string') {
      for (const part of item.content) {
        if (part.kind !== 'tool-call') continue;
        if (pending.some((call) => call.id === part.id)) {
          throw adapterError('UNSUPPORTED_MESSAGE', at, `tool call id ${part.id} is used twice`);
        }
        pending.push({ id: part.id, name: part.name, at });
      }
    }
    if (item.role !== 'tool') {
      items.push(item);
      continue;
    }
    const wantedId = item.callId;
    const index =
      wantedId === ''
        ? pending.findIndex((call) => call.name === item.toolName)
        : pending.findIndex((call) => call.id === wantedId);
    const call = pending[index];
    if (call === undefined) {
      const which = wantedId === '' ? `of tool ${item.toolName}` : `for call ${wantedId}`;
      throw adapterError('UNPAIRED_TOOL_MESSAGE', at, `tool result ${which} answers no open call`);
    }
    pending.splice(index, 1);
    items.push({ ...item, callId: call.id });
  }
  return items;
}

function isLog(input: AdapterInput): input is readonly SessionEvent[] {
  const first = input[0] as object | undefined;
  return first !== undefined && 'seq' in first && 'type' in first;
}

/** Reads one derived message; a tool message without `toolCallId` gets callId `''` (paired by the caller). */
function readMessage(message: JsonValue, at: Where): HistoryItem {
  if (!isObject(message)) throw adapterError('UNSUPPORTED_MESSAGE', at, 'a message must be an object');
  switch (message['role']) {
    case 'system':
      return { role: 'system', content: text(message['content'], at, 'content'), at };
    case 'user':
      return { role: 'user', content: userContent(message['content'], at), at };
    case 'assistant':
      return { role: 'assistant', content: assistantContent(message, at), at };
    case 'tool': {
      const callId = message['toolCallId'];
      return {
        role: 'tool',
        callId: callId === undefined ? '' : text(callId, at, 'toolCallId'),
        toolName: text(message['toolName'], at, 'toolName'),
        content: toolContent(message['content']),
        isError: message['isError'] === true,
        at,
      };
    }
    default:
      throw adapterError('UNSUPPORTED_MESSAGE', at, `unknown role ${JSON.stringify(message['role'])}`);
  }
}

function text(value: JsonValue | undefined, at: Where, field: string): string {
  if (typeof value !== 'string') throw adapterError('UNSUPPORTED_MESSAGE', at, `${field} must be a string`);
  return value;
}

function userContent(content: JsonValue | undefined, at: Where): string | UserPart[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw adapterError('UNSUPPORTED_MESSAGE', at, 'user content must be text or parts');
  return (content as readonly JsonValue[]).map((part) => {
    const read = userPart(part);
    if (read === undefined) throw adapterError('UNSUPPORTED_MESSAGE', at, `unsupported user part ${describe(part)}`);
    return read;
  });
}

/**
 * A text or image part in any of the formats: `{type:'text',text}`, OpenAI's `{type:'image_url',image_url:{url}}`,
 * Anthropic's `{type:'image',source:{type:'url',url}|{type:'base64',media_type,data}}`. Else undefined.
 */
function userPart(part: JsonValue): UserPart | undefined {
  if (!isObject(part)) return undefined;
  const type = part['type'];
  if (type === 'text' && typeof part['text'] === 'string') return { kind: 'text', text: part['text'] };
  if (type === 'image_url') {
    const image = part['image_url'];
    const url = isObject(image) ? image['url'] : image;
    return typeof url === 'string' ? { kind: 'image', url } : undefined;
  }
  if (type === 'image' && isObject(part['source'])) {
    const source = part['source'];
    if (source['type'] === 'url' && typeof source['url'] === 'string') return { kind: 'image', url: source['url'] };
    const { media_type: mediaType, data } = source;
    if (source['type'] === 'base64' && typeof mediaType === 'string' && typeof data === 'string') {
      return { kind: 'image', url: `data:${mediaType};base64,${data}` };
    }
  }
  return undefined;
}

/** Tool output: text, text/image parts, or any other JSON as its JSON text (the formats take only text there). */
function toolContent(content: JsonValue | undefined): string | UserPart[] {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const parts = (content as readonly JsonValue[]).map(userPart);
    if (parts.every((part) => part !== undefined)) return parts as UserPart[];
  }
  return JSON.stringify(content ?? null);
}

/**
 * Assistant content: a string, or blocks (`text`, `thinking` with its `signature`, `redacted_thinking`,
 * `tool_use`), plus calls given as `toolCalls`/`tool_calls: [{ id, name, arguments }]` (the other shape writers use).
 */
function assistantContent(message: JsonObject, at: Where): string | AssistantPart[] {
  const content = message['content'];
  const calls = message['toolCalls'] ?? message['tool_calls'];
  const extraCalls = calls === undefined || calls === null ? [] : listedCalls(calls, at);
  if (typeof content === 'string' && extraCalls.length === 0) return content;
  const parts: AssistantPart[] = [];
  if (typeof content === 'string') {
    if (content !== '') parts.push({ kind: 'text', text: content });
  } else if (Array.isArray(content)) {
    for (const block of content as readonly JsonValue[]) parts.push(assistantBlock(block, at));
  } else if (content !== undefined && content !== null) {
    throw adapterError('UNSUPPORTED_MESSAGE', at, 'assistant content must be text or blocks');
  }
  parts.push(...extraCalls);
  return parts;
}

function assistantBlock(block: JsonValue, at: Where): AssistantPart {
  if (isObject(block)) {
    const { type } = block;
    if (type === 'text' && typeof block['text'] === 'string') return { kind: 'text', text: block['text'] };
    if (type === 'thinking' && typeof block['thinking'] === 'string') {
      const signature = block['signature'];
      return {
        kind: 'thinking',
        thinking: block['thinking'],
        signature: typeof signature === 'string' && signature !== '' ? signature : undefined,
      };
    }
    if (type === 'redacted_thinking' && typeof block['data'] === 'string') {
      return { kind: 'redacted-thinking', data: block['data'] };
    }
    if (type === 'tool_use') return toolCallPart(block['id'], block['name'], block['input'], at);
  }
  throw adapterError('UNSUPPORTED_MESSAGE', at, `unsupported assistant block ${describe(block)}`);
}

function listedCalls(calls: JsonValue, at: Where): ToolCallPart[] {
  if (!Array.isArray(calls)) throw adapterError('UNSUPPORTED_MESSAGE', at, 'toolCalls must be an array');
  return (calls as readonly JsonValue[]).map((call) => {
    if (!isObject(call)) throw adapterError('UNSUPPORTED_MESSAGE', at, 'a tool call must be an object');
    const args = call['arguments'];
    return toolCallPart(call['id'], call['name'], typeof args === 'string' ? parseArguments(args, at) : args, at);
  });
}

function toolCallPart(
  id: JsonValue | undefined,
  name: JsonValue | undefined,
  input: JsonValue | undefined,
  at: Where,
): ToolCallPart {
  if (typeof id !== 'string' || id === '' || typeof name !== 'string' || name === '' || input === undefined) {
    throw adapterError('UNSUPPORTED_MESSAGE', at, 'a tool call needs a non-empty id and name, and an input');
  }
  return { kind: 'tool-call', id, name, input, arguments: JSON.stringify(input) };
}

/** Tool-call arguments as JSON text → the value (UNSUPPORTED_MESSAGE when it is not JSON). */
export function parseArguments(args: string, at: Where): JsonValue {
  try {
    return JSON.parse(args) as JsonValue;
  } catch {
    throw adapterError('UNSUPPORTED_MESSAGE', at, 'tool call arguments are not JSON text');
  }
}

function describe(value: JsonValue): string {
  const type = isObject(value) ? value['type'] : undefined;
  return typeof type === 'string' ? `of type ${JSON.stringify(type.slice(0, 64))}` : `(${typeof value})`;
}
