/** @jsxImportSource react */
// The hooks test page: components on `useSession`, under Strict Mode, driven by window.hooksPage from the test.
import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { HubClient } from '../../client/index.ts';
import { HubProvider, useSession } from '../../client/react/index.ts';

const params = new URLSearchParams(location.search);
const client = new HubClient({ url: params.get('hub') ?? '' });

/** Renders per component name, and animation frames since the page started. */
const stats = { renders: {} as Record<string, number>, frames: 0 };
const countFrames = () => {
  stats.frames++;
  requestAnimationFrame(countFrames);
};
requestAnimationFrame(countFrames);

function View({ name, sessionId }: { readonly name: string; readonly sessionId: string }) {
  const session = useSession(null, sessionId, { label: name });
  stats.renders[name] = (stats.renders[name] ?? 0) + 1;
  return (
    <section
      data-name={name}
      data-session={sessionId}
      data-status={session.status}
      data-last-seq={session.lastSeq}
      data-messages={session.messages.length}
    />
  );
}

function App() {
  const [views, setViews] = useState<readonly { name: string; sessionId: string }[]>([]);
  useEffect(() => {
    (window as unknown as { hooksPage: unknown }).hooksPage = {
      show: (next: { name: string; sessionId: string }[]) => setViews(next),
      stats: () => ({ renders: { ...stats.renders }, frames: stats.frames }),
      resetRenders: () => {
        stats.renders = {};
      },
    };
  }, []);
  return (
    <>
      {views.map((view) => (
        <View key={view.name} name={view.name} sessionId={view.sessionId} />
      ))}
    </>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <HubProvider client={client}>
      <App />
    </HubProvider>
  </StrictMode>,
);
