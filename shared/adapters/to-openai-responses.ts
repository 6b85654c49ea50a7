import { readHistory, type AdapterInput, type UserPart } from './history.ts';
import type { OpenAIResponsesInputImage, OpenAIResponsesInputItem, OpenAIResponsesInputText } from './types.ts';

/**
 * Derived messages → a Responses API request's `input` items (stateless: no `previous_response_id`): system and
 * user messages, an assistant message item per run of assistant text, a `function_call` per tool call and a
 * `function_call_output` per result (results without an id paired FIFO by tool name). Reasoning is not sent
 * (Responses replays reasoning only as its own encrypted items). Errors: see `readHistory`.
 */
export function toOpenAIResponses(input: AdapterInput): OpenAIResponsesInputItem[] {
  const out: OpenAIResponsesInputItem[] = [];
  for (const item of readHistory(input)) {
    switch (item.role) {
      case 'system':
        out.push({ type: 'message', role: 'system', content: item.content });
        break;
      case 'user':
        out.push({
          type: 'message',
          role: 'user',
          content: typeof item.content === 'string' ? item.content : item.content.map(inputPart),
        });
        break;
      case 'assistant': {
        if (typeof item.content === 'string') {
          out.push({ type: 'message', role: 'assistant', content: item.content });
          break;
        }
        let text: string[] = [];
        const flushText = (): void => {
          if (text.length > 0) out.push({ type: 'message', role: 'assistant', content: text.join('') });
          text = [];
        };
        for (const part of item.content) {
          if (part.kind === 'text') text.push(part.text);
          if (part.kind !== 'tool-call') continue;
          flushText();
          out.push({ type: 'function_call', call_id: part.id, name: part.name, arguments: part.arguments });
        }
        flushText();
        break;
      }
      case 'tool':
        out.push({ type: 'function_call_output', call_id: item.callId, output: outputText(item.content) });
        break;
    }
  }
  return out;
}

function inputPart(part: UserPart): OpenAIResponsesInputText | OpenAIResponsesInputImage {
  return part.kind === 'text'
    ? { type: 'input_text', text: part.text }
    : { type: 'input_image', image_url: part.url, detail: 'auto' };
}

/** A function call's output as text: text parts joined, anything else as JSON text. */
function outputText(content: string | readonly UserPart[]): string {
  if (typeof content === 'string') return content;
  if (content.every((part) => part.kind === 'text')) return content.map((part) => part.text).join('');
  return JSON.stringify(content.map(inputPart));
}
