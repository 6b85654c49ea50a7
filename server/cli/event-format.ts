import type { DerivedMessage, SessionEvent } from '../../shared/index.ts';
import { terminalLine, terminalText } from './terminal-text.ts';

/** Longest summary on one line (characters). */
const maxSummary = 120;

function oneLine(text: string, max = maxSummary): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function record(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The readable text of message content: a string, or its text parts (other parts as `[type]`). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return JSON.stringify(content) ?? '';
  return content
    .map((part) => {
      const fields = record(part);
      if (typeof fields['text'] === 'string') return fields['text'];
      if (fields['type'] === 'tool_use' || fields['type'] === 'tool-call') {
        return `[${String(fields['name'] ?? 'tool')}(${JSON.stringify(fields['input'] ?? fields['arguments'] ?? {})})]`;
      }
      return `[${String(fields['type'] ?? 'part')}]`;
    })
    .join(' ');
}

/** A short summary of an event's data for `session-hub tail` (one line). */
export function eventSummary(event: SessionEvent): string {
  const data = record(event.data);
  const step = (): string => `turn ${String(data['turn'])} step ${String(data['step'])}`;
  switch (event.type) {
    case 'turn/start':
      return `turn ${String(data['turn'])}`;
    case 'turn/end':
      return `turn ${String(data['turn'])}: ${String(record(data['reason'])['kind'])}`;
    case 'step/start':
    case 'step/end':
      return step();
    case 'system/message':
      return oneLine(String(data['content']));
    case 'user/message':
      return oneLine(contentText(data['content']));
    case 'assistant/chunk': {
      const chunk = record(data['chunk']);
      if (typeof chunk['text'] === 'string') return JSON.stringify(chunk['text']);
      return oneLine(JSON.stringify(data['chunk']) ?? '');
    }
    case 'assistant/message':
      return oneLine(contentText(record(data['message'])['content']));
    case 'tool/call':
      return oneLine(`${String(data['name'])}(${String(data['arguments'])})`);
    case 'tool/result': {
      const message = record(data['message']);
      const error = message['isError'] === true ? ' (error)' : '';
      return oneLine(`${String(message['toolName'])}${error}: ${contentText(message['content'])}`);
    }
    default:
      return oneLine(JSON.stringify(event.data) ?? '');
  }
}

/** `12  2025-08-12T12:00:00.030Z  assistant/chunk  "I'll "`, control characters escaped (`terminalText`). */
export function eventLine(event: SessionEvent): string {
  return `${terminalLine(`${event.seq}  ${new Date(event.time).toISOString()}  ${event.type}  ${eventSummary(event)}`)}\n`;
}

/**
 * A derived message as transcript lines: `user: ...`, `assistant: ...`, `tool bash: ...`, control characters
 * escaped (`terminalText`).
 */
export function messageLines(message: DerivedMessage): string {
  const fields = message as unknown as Readonly<Record<string, unknown>>;
  const who = message.role === 'tool' ? `tool ${message.toolName}${message.isError ? ' (error)' : ''}` : message.role;
  return `${terminalLine(who)}: ${streamedText(contentText(fields['content']))}\n`;
}

/** Text of a message for the transcript: control characters escaped, continuation lines indented. */
export function streamedText(text: string): string {
  return terminalText(text).replace(/\n/g, '\n  ');
}
