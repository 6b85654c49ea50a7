import { isObject } from './is-object.ts';
import type { JsonObject, JsonValue } from './json.ts';
import type { SessionEvent } from './events.ts';

/** What a redacted text becomes. */
export const REDACTED_TEXT = '[redacted]';

/** The type of the audit event a redaction appends (an extension event: stored and broadcast, never projected). */
export const REDACTION_AUDIT_TYPE = 'audit/redaction';

/** The data of an `audit/redaction` event: who, why, which seqs, and a digest of the removed bytes (never the bytes). */
export interface RedactionAudit extends JsonObject {
  /** The principal that asked (a token subject, `anonymous` on an open hub, `secret-scan` for scanning at append). */
  readonly by: string;
  readonly reason: string;
  /** The seqs whose data was replaced, ascending. */
  readonly seqs: readonly number[];
  /** `sha256:<hex>` of the removed stored bodies, in seq order. */
  readonly digest: string;
}

/** Keys of a content part or tool call that name or pair things (kept); every other key is dropped. */
const PAIRING_KEYS = new Set(['type', 'id', 'name', 'call_id', 'tool_use_id', 'toolCallId', 'toolName', 'is_error']);

function redactText(value: JsonValue | undefined): JsonValue {
  return value === '' ? '' : REDACTED_TEXT;
}

/** Keys that pair a part with another (a tool use and its result): a part with one of them keeps its pairing. */
const PAIRED_BY = ['id', 'call_id', 'tool_use_id', 'toolCallId'];

/**
 * A content part or tool call: one that pairs (a tool use, a tool call, a tool result) keeps its ids and names,
 * with its input `{}`, its arguments `'{}'` and its text or content the marker; any other part becomes a text part.
 */
function redactPart(part: JsonValue): JsonValue {
  if (!isObject(part)) return REDACTED_TEXT;
  if (!PAIRED_BY.some((key) => typeof part[key] === 'string')) return { type: 'text', text: REDACTED_TEXT };
  const kept: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(part)) {
    if (PAIRING_KEYS.has(key) && (typeof value === 'string' || typeof value === 'boolean')) kept[key] = value;
    else if (key === 'input') kept[key] = {};
    else if (key === 'arguments') kept[key] = typeof value === 'string' ? '{}' : {};
    else if (key === 'text' || key === 'content') kept[key] = REDACTED_TEXT;
  }
  return kept;
}

/** A message's content: empty stays empty (so what projected to nothing still does), parts keep their pairing. */
function redactContent(content: JsonValue | undefined): JsonValue {
  if (content === undefined || content === null || content === '') return content ?? null;
  if (Array.isArray(content)) return content.length === 0 ? [] : (content as readonly JsonValue[]).map(redactPart);
  return REDACTED_TEXT;
}

function pick(data: JsonObject, keys: readonly string[]): Record<string, JsonValue> {
  const kept: Record<string, JsonValue> = {};
  for (const key of keys) if (data[key] !== undefined) kept[key] = data[key];
  return kept;
}

function redactAssistant(message: JsonObject): JsonObject {
  const redacted: Record<string, JsonValue> = { role: 'assistant' };
  if (message['content'] !== undefined) redacted['content'] = redactContent(message['content']);
  const toolCalls = message['toolCalls'];
  if (Array.isArray(toolCalls)) redacted['toolCalls'] = (toolCalls as readonly JsonValue[]).map(redactPart);
  return redacted;
}

function redactTool(message: JsonObject): JsonObject {
  const redacted = pick(message, ['role', 'toolCallId', 'toolName', 'isError']);
  redacted['content'] = redactContent(message['content']);
  return redacted;
}

function redactHeader(data: JsonObject): JsonObject {
  const header = isObject(data['header']) ? (data['header'] as JsonObject) : {};
  const config = isObject(header['config']) ? pick(header['config'] as JsonObject, ['provider', 'model']) : {};
  const redacted: Record<string, JsonValue> = { config };
  const tools = header['tools'];
  if (tools !== undefined)
    redacted['tools'] = Array.isArray(tools) ? (tools as readonly JsonValue[]).map(redactPart) : [];
  return { header: redacted, reason: data['reason'] ?? 'initial' };
}

/**
 * The placeholder data of a redacted event of `type` (pure; `data` is the event's current, valid data). The result
 * has a valid shape for the type and keeps what the lifecycle and the surface rules look at (turn, step, call ids
 * and names, roles, `isError`): text becomes `[redacted]`, tool arguments `{}`, tool inputs `{}`; fields the type
 * does not need are dropped. Empty content stays empty, so an event that projected to no message still projects
 * to none. An extension event's data becomes `[redacted]`. Redacting a placeholder again gives the same data.
 */
export function redactEventData(type: string, data: SessionEvent['data'] | JsonValue): JsonValue {
  const value = data as JsonValue;
  if (!isObject(value)) return REDACTED_TEXT;
  const object = value;
  switch (type) {
    case 'turn/start':
      return pick(object, ['turn']);
    case 'step/start':
    case 'step/end':
      return pick(object, ['turn', 'step']);
    case 'turn/end': {
      const reason = isObject(object['reason']) ? pick(object['reason'] as JsonObject, ['kind']) : object['reason'];
      return { ...pick(object, ['turn']), reason: reason ?? { kind: 'completed' } };
    }
    case 'system/message':
      return { ...pick(object, ['turn', 'step']), content: redactText(object['content']) };
    case 'user/message':
      return { role: 'user', content: redactContent(object['content']) };
    case 'assistant/chunk':
      return { ...pick(object, ['turn', 'step']), chunk: REDACTED_TEXT };
    case 'assistant/message': {
      const message = isObject(object['message']) ? (object['message'] as JsonObject) : {};
      return { ...pick(object, ['turn', 'step', 'usage']), message: redactAssistant(message) };
    }
    case 'tool/call':
      return { ...pick(object, ['turn', 'step', 'callId', 'name']), arguments: '{}' };
    case 'tool/result': {
      const message = isObject(object['message']) ? (object['message'] as JsonObject) : {};
      const redacted: Record<string, JsonValue> = { ...pick(object, ['turn', 'step']), message: redactTool(message) };
      if (object['error'] !== undefined) redacted['error'] = REDACTED_TEXT;
      if (object['meta'] !== undefined) redacted['meta'] = REDACTED_TEXT;
      return redacted;
    }
    case 'request/header':
      return redactHeader(object);
    default:
      return REDACTED_TEXT;
  }
}

/** True for an `audit/redaction` event whose data has the audit's shape. */
export function isRedactionAudit(event: SessionEvent): event is SessionEvent & { readonly data: RedactionAudit } {
  if (event.type !== REDACTION_AUDIT_TYPE || !isObject(event.data)) return false;
  const seqs = (event.data as JsonObject)['seqs'];
  return Array.isArray(seqs) && seqs.every((seq) => Number.isSafeInteger(seq));
}

/** The seqs the audit events of `events` name as redacted (for a reader marking redacted events). */
export function redactedSeqsOf(events: Iterable<SessionEvent>): Set<number> {
  const seqs = new Set<number>();
  for (const event of events) if (isRedactionAudit(event)) for (const seq of event.data.seqs) seqs.add(seq);
  return seqs;
}

/** What the hub answers a redaction (`POST /v1/sessions/:id/redactions`, docs/protocol.md). */
export interface RedactionReply {
  readonly sessionId: string;
  /** The session's epoch after the redaction (a new one when something was redacted). */
  readonly epoch: string;
  /** The seqs whose data this call replaced by placeholders, ascending. */
  readonly seqs: readonly number[];
  /** Requested seqs that already held their placeholder (a retry, or nothing to remove). */
  readonly unchanged: readonly number[];
  /**
   * Requested seqs below the first event the hub keeps (trimmed with no archive to hold them): not changed by this
   * call. Seqs in the hub's archive are redacted there, and listed in `seqs`.
   */
  readonly cold: readonly number[];
  /** The seq of the `audit/redaction` event appended with it; null when nothing was written. */
  readonly auditSeq: number | null;
}
