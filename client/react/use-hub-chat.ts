import { useEffect, useRef, useState } from 'react';
import type { HubChatTransport } from '../ai-sdk/hub-chat-transport.ts';
import { logToUIMessages, type HubUIMessage } from '../ai-sdk/log-ui.ts';
import { turnMessageId } from '../ai-sdk/turn-chunks.ts';
import { pendingReply } from '../ai-sdk/turn-stream.ts';
import { useSession } from './use-session.ts';

/** What `useHubChat` needs of `useChat`'s result. */
export interface ChatHelpersLike {
  readonly messages: readonly HubUIMessage[];
  readonly status: 'submitted' | 'streaming' | 'ready' | 'error';
  setMessages(messages: HubUIMessage[]): void;
  resumeStream(): Promise<void>;
}

function sameMessages(a: readonly HubUIMessage[], b: readonly HubUIMessage[]): boolean {
  return a.length === b.length && JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Keeps a `useChat` on a `HubChatTransport` in step with the session's log, which other tabs and agents write too:
 * while the chat is idle it shows the log's messages (`logToUIMessages`), and when the log holds a turn this tab is
 * not streaming (sent from another tab, or open across a reload) it resumes it (`resumeStream`, replayed from the
 * turn's start). Use it instead of `useChat({ resume: true })`. Returns the session's view (`useSession`).
 */
export function useHubChat(chat: ChatHelpersLike, transport: HubChatTransport): ReturnType<typeof useSession> {
  const session = useSession(transport.client, transport.sessionId);
  const resuming = useRef(false);
  const [resumed, setResumed] = useState(0);
  const { events, status } = session;
  useEffect(() => {
    if (status !== 'live' || chat.status !== 'ready' || resuming.current) return;
    const fromLog = logToUIMessages(events);
    const pending = pendingReply(events);
    if (pending.kind === 'none') {
      if (!sameMessages(chat.messages, fromLog)) chat.setMessages(fromLog);
      return;
    }
    const streaming = pending.kind === 'open-turn' ? turnMessageId(pending.turn) : undefined;
    chat.setMessages(fromLog.filter((message) => message.id !== streaming));
    resuming.current = true;
    chat
      .resumeStream()
      .catch((error: unknown) => console.warn(`[session-hub react] resuming the chat failed: ${String(error)}`))
      .finally(() => {
        resuming.current = false;
        setResumed((count) => count + 1); // look at the log again now that the chat is idle
      });
  }, [events, status, chat, resumed]);
  return session;
}
