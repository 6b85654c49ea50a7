// "Fork here" in time travel: a new session sharing this one's events up to the seq shown (docs/inspector.md).
import { useState } from 'preact/hooks';
import type { HubClient } from '../../client/index.ts';

export function ForkHere(props: { client: HubClient; sessionId: string; atSeq: number }) {
  const { client, sessionId, atSeq } = props;
  const [result, setResult] = useState<{ text: string; insideTurn: boolean } | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const fork = async (repair: boolean): Promise<void> => {
    setBusy(true);
    try {
      const made = await client.fork(sessionId, atSeq, { repair });
      location.href = `/inspect?session=${encodeURIComponent(made.sessionId)}`;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const message = error instanceof Error ? error.message : String(error);
      setResult({
        text: `${typeof code === 'string' ? code : 'error'}: ${message}`,
        insideTurn: code === 'FORK_INSIDE_TURN',
      });
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="fork-here" data-testid="fork-here">
      <button disabled={busy} onClick={() => void fork(false)} title="a new session with the events up to this seq">
        fork here
      </button>
      {result !== undefined && (
        <span class="muted" data-testid="fork-result">
          {result.text}{' '}
          {result.insideTurn && (
            <button disabled={busy} onClick={() => void fork(true)} title="close the open turn in the fork">
              fork and close the turn
            </button>
          )}
        </span>
      )}
    </span>
  );
}
