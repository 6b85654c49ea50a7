// Type-checked by a consumer's `tsc` (strict + NodeNext) with react, ai and their types installed as the optional
// peers: the public types of session-hub/react and session-hub/ai-sdk as an application uses them.
import type { ChatTransport } from 'ai';
import type { ReactNode } from 'react';
import { HubClient } from 'session-hub';
import { useSession, useAppend, HubProvider, type SessionSnapshot } from 'session-hub/react';
import { HubChatTransport, derivedToUIMessages, type HubUIMessage } from 'session-hub/ai-sdk';

const client = new HubClient({ url: 'ws://127.0.0.1:8080/v1/ws' });
const chatTransport: ChatTransport<HubUIMessage> = new HubChatTransport({ client, sessionId: 'demo/1' });
export function Watch(): ReactNode {
  const snapshot: SessionSnapshot = useSession(client, 'demo/1');
  const append = useAppend(client, 'demo/1');
  void append({ type: 'ui/ping', data: null });
  return HubProvider({ client, children: String(snapshot.lastSeq + derivedToUIMessages(snapshot.messages).length) });
}
void chatTransport;
