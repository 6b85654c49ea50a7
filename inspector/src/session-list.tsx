// The sessions of the hub (admin grant), filtered by prefix, refreshed every few seconds.
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './hub-access.ts';

const REFRESH_MS = 5000;
/** Heads are read for this many listed sessions (one request each). */
const HEADS_SHOWN = 50;

interface Row {
  readonly sessionId: string;
  readonly headSeq: number | undefined;
  readonly watchers: number | undefined;
  /** Commit time of the newest event. */
  readonly lastActivity: number | undefined;
}

/** Head, watcher count and last activity of one session (three reads; a failed one leaves its cell empty). */
async function rowOf(sessionId: string, token: string | undefined): Promise<Row> {
  const path = `/v1/sessions/${encodeURIComponent(sessionId)}`;
  const [head, presence] = await Promise.all([
    getJson<{ headSeq: number }>(path, token),
    getJson<{ watchers: unknown[] }>(`${path}/presence`, token),
  ]);
  const headSeq = head.ok ? head.body.headSeq : undefined;
  const last =
    headSeq !== undefined && headSeq >= 0
      ? await getJson<{ events: { time: number }[] }>(`${path}/events?from=${headSeq}&limit=1`, token)
      : undefined;
  return {
    sessionId,
    headSeq,
    watchers: presence.ok ? presence.body.watchers.length : undefined,
    lastActivity: last?.ok === true ? last.body.events[0]?.time : undefined,
  };
}

export function SessionList(props: { token: string | undefined }) {
  const [prefix, setPrefix] = useState('');
  const [rows, setRows] = useState<readonly Row[]>([]);
  /** Sessions listed (undefined until the first answer for the current prefix). */
  const [total, setTotal] = useState<number | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    let stopped = false;
    setTotal(undefined);
    const load = async (): Promise<void> => {
      const query = prefix === '' ? '' : `?prefix=${encodeURIComponent(prefix)}`;
      const answer = await getJson<{ sessions: string[] }>(`/v1/sessions${query}`, props.token);
      if (stopped) return;
      if (!answer.ok) {
        setError(`${answer.code}: ${answer.message}`);
        return;
      }
      setError(undefined);
      setTotal(answer.body.sessions.length);
      const shown = answer.body.sessions.slice(0, HEADS_SHOWN);
      const rows = await Promise.all(shown.map((id) => rowOf(id, props.token)));
      if (!stopped) setRows(rows);
    };
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [prefix, props.token]);
  return (
    <div class="session-list">
      <header class="bar">
        <h1>Sessions</h1>
        <input
          placeholder="prefix filter, e.g. acme/"
          value={prefix}
          data-testid="prefix"
          onInput={(event) => setPrefix((event.target as HTMLInputElement).value)}
        />
        <span class="muted">{total === undefined ? 'loading…' : `${total} sessions`}</span>
      </header>
      {error !== undefined && (
        <p class="error" data-testid="error">
          {error}
        </p>
      )}
      <table>
        <thead>
          <tr>
            <th>session</th>
            <th>head seq</th>
            <th>watching</th>
            <th>last activity</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.sessionId} data-session={row.sessionId}>
              <td>
                <a href={`/inspect?session=${encodeURIComponent(row.sessionId)}`}>{row.sessionId}</a>
              </td>
              <td>{row.headSeq ?? '–'}</td>
              <td>{row.watchers ?? '–'}</td>
              <td>{row.lastActivity === undefined ? '–' : new Date(row.lastActivity).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {total === 0 && (
        <p class="muted" data-testid="no-sessions">
          {prefix === ''
            ? 'No sessions yet: append to one with the SDK, `session-hub import`, or POST /v1/sessions/:id/events.'
            : `No session id starts with "${prefix}".`}
        </p>
      )}
      {total !== undefined && total > rows.length && (
        <p class="muted">showing the first {rows.length}; narrow with a prefix</p>
      )}
    </div>
  );
}
