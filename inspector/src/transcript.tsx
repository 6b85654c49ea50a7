// The derived messages as a chat transcript: what the model gets, with tool calls paired with their results.
import type { DerivedMessage } from '../../shared/index.ts';
import { textOf } from './session-model.ts';
import { VirtualList } from './virtual-list.tsx';

interface ToolUse {
  readonly id?: string;
  readonly name?: string;
  readonly input?: unknown;
}

function toolUses(message: DerivedMessage): readonly ToolUse[] {
  const content = (message as { content?: unknown }).content;
  if (!Array.isArray(content)) return [];
  return content.filter(
    (part): part is ToolUse =>
      part !== null && typeof part === 'object' && (part as { type?: unknown }).type === 'tool_use',
  );
}

function MessageBubble({ message }: { message: DerivedMessage }) {
  const content = (message as { content?: unknown }).content;
  const text = textOf(content);
  const tool = message.role === 'tool' ? message : undefined;
  return (
    <div class={`message role-${message.role}`} data-role={message.role}>
      <div class="who">
        {message.role}
        {tool !== undefined ? ` · ${tool.toolName}${tool.isError ? ' · error' : ''}` : ''}
        {tool?.toolCallId !== undefined && <span class="muted"> · answers {tool.toolCallId}</span>}
      </div>
      {text !== '' && <div class="text">{text}</div>}
      {toolUses(message).map((use) => (
        <div class="tool-use" key={use.id}>
          ⚙ {use.name}({JSON.stringify(use.input)}) <span class="muted">{use.id}</span>
        </div>
      ))}
    </div>
  );
}

export function Transcript(props: { messages: readonly DerivedMessage[]; streaming: string; follow: boolean }) {
  const { messages, streaming } = props;
  const count = messages.length + (streaming === '' ? 0 : 1);
  return (
    <VirtualList
      count={count}
      estimateSize={64}
      follow={props.follow}
      rowKey={(index) => (index < messages.length ? index : 'streaming')}
      testId="transcript"
      className="transcript"
      renderRow={(index) =>
        index < messages.length ? (
          <MessageBubble message={messages[index]!} />
        ) : (
          <div class="message role-assistant streaming" data-role="assistant-streaming">
            <div class="who">assistant · streaming</div>
            <div class="text">{streaming}</div>
          </div>
        )
      }
    />
  );
}
