import type { DerivedMessage, SessionEvent } from './events.ts';
import type { JsonObject, JsonValue } from './json.ts';

function isEmptyContent(content: JsonValue | undefined): boolean {
  return (
    content === undefined ||
    content === null ||
    content === '' ||
    (Array.isArray(content) && (content as readonly JsonValue[]).length === 0)
  );
}

/**
 * The message a surface event projects to, or null when it projects to nothing (a `system/message` with `''`
 * content, an `assistant/message` whose `message.content` is empty or absent, any non-surface type).
 * Messages are the events' own frozen data (never copied), except `system/message`, built once here.
 */
export function projectEvent(event: SessionEvent): DerivedMessage | null {
  const data = event.data as JsonObject;
  switch (event.type) {
    case 'user/message':
      return data as DerivedMessage;
    case 'tool/result':
      return data['message'] as DerivedMessage;
    case 'assistant/message': {
      const message = data['message'] as JsonObject;
      return isEmptyContent(message['content']) ? null : (message as DerivedMessage);
    }
    case 'system/message': {
      const content = data['content'] as string;
      return content === '' ? null : Object.freeze({ role: 'system', content });
    }
    default:
      return null;
  }
}
