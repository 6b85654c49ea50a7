/** @jsxImportSource react */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { HubClient } from 'session-hub';
import { HubProvider } from 'session-hub/react';
import { Chat } from './chat.tsx';

const params = new URLSearchParams(location.search);
const hubUrl = params.get('hub') ?? 'ws://127.0.0.1:8080/v1/ws';
const sessionId = params.get('session') ?? 'demo/react-chat';
const client = new HubClient({ url: hubUrl });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <HubProvider client={client}>
      <Chat sessionId={sessionId} />
    </HubProvider>
  </StrictMode>,
);
