/** @jsxImportSource react */
import { useChat } from '@ai-sdk/react';
import { useMemo, useState, type FormEvent } from 'react';
import { HubChatTransport, type HubUIMessage } from 'session-hub/ai-sdk';
import { useHubChat, useHubClient } from 'session-hub/react';

function textOf(message: HubUIMessage): string {
  return message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** A chat on one session: `useChat` on the hub transport, kept in step with other tabs by `useHubChat`. */
export function Chat({ sessionId }: { readonly sessionId: string }) {
  const client = useHubClient();
  const transport = useMemo(() => new HubChatTransport({ client, sessionId }), [client, sessionId]);
  const chat = useChat<HubUIMessage>({ id: sessionId, transport });
  const session = useHubChat(chat, transport);
  const [input, setInput] = useState('');
  const busy = chat.status === 'submitted' || chat.status === 'streaming';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (input.trim() === '' || busy) return;
    void chat.sendMessage({ text: input });
    setInput('');
  };

  return (
    <main data-session-status={session.status} data-chat-status={chat.status} data-last-seq={session.lastSeq}>
      <h1>{sessionId}</h1>
      <ul id="messages">
        {chat.messages.map((message) => (
          <li
            key={message.id}
            data-id={message.id}
            data-role={message.role}
            data-turn-status={message.metadata?.status ?? ''}
          >
            <b>{message.role}</b> <span className="text">{textOf(message)}</span>
            {message.metadata?.status === 'interrupted' ? <i> (stopped)</i> : null}
          </li>
        ))}
      </ul>
      <form onSubmit={submit}>
        <input
          id="input"
          value={input}
          onChange={(event) => setInput(event.target.value)}
          placeholder="Say something"
        />
        <button id="send" type="submit" disabled={busy}>
          Send
        </button>
        <button id="stop" type="button" disabled={!busy} onClick={() => void chat.stop()}>
          Stop
        </button>
      </form>
      {chat.error === undefined ? null : <p role="alert">{chat.error.message}</p>}
    </main>
  );
}
