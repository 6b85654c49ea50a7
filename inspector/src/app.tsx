// The inspector: a session list, or one session (`?session=<id>`); a token bar when the hub wants one.
import { useState } from 'preact/hooks';
import { readToken, saveToken } from './hub-access.ts';
import { SessionList } from './session-list.tsx';
import { SessionView } from './session-view.tsx';

function TokenBar(props: { token: string | undefined; onToken: (token: string | undefined) => void }) {
  const [draft, setDraft] = useState('');
  return (
    <form
      class="token-bar"
      onSubmit={(event) => {
        event.preventDefault();
        props.onToken(draft.trim() === '' ? undefined : draft.trim());
      }}
    >
      {props.token === undefined ? (
        <>
          <input
            type="password"
            placeholder="token (if the hub requires one)"
            value={draft}
            data-testid="token-input"
            onInput={(event) => setDraft((event.target as HTMLInputElement).value)}
          />
          <button type="submit">Use token</button>
        </>
      ) : (
        <button type="button" onClick={() => props.onToken(undefined)}>
          Forget token
        </button>
      )}
    </form>
  );
}

export function App() {
  const [token, setToken] = useState<string | undefined>(() => readToken());
  const sessionId = new URLSearchParams(location.search).get('session');
  const onToken = (next: string | undefined): void => {
    saveToken(next);
    setToken(next);
  };
  return (
    <>
      <TokenBar token={token} onToken={onToken} />
      {sessionId === null ? (
        <SessionList token={token} />
      ) : (
        <SessionView key={`${sessionId}\n${token ?? ''}`} sessionId={sessionId} token={token} />
      )}
    </>
  );
}
