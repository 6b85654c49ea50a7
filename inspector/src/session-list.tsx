// The sessions of the hub (admin grant), most recently active first, filtered by prefix and label, refreshed every
// few seconds.
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './hub-access.ts';

const REFRESH_MS = 5000;
/** Sessions shown: the most recently active ones (one page of the listing; watchers read for each). */
const ROWS_SHOWN = 50;

/** A row of `GET /v1/sessions`. */
interface ListedSession {
  readonly id: string;
  readonly headSeq: number;
  readonly lastActivity?: number;
  readonly title?: string;
  readonly labels?: Readonly<Record<string, string>>;
}

interface Row extends ListedSession {
  readonly watchers: number | undefined;
}

/** The row with its watcher count (one read; a failed one leaves its cell empty). */
async function rowOf(session: ListedSession, token: string | undefined): Promise<Row> {
  const presence = await getJson<{ watchers: unknown[] }>(
    `/v1/sessions/${encodeURIComponent(session.id)}/presence`,
    token,
  );
  return { ...session, watchers: presence.ok ? presence.body.watchers.length : undefined };
}

const labelText = (labels: Readonly<Record<string, string>> | undefined): string =>
  Object.entries(labels ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');

export function SessionList(props: { token: string | undefined }) {
  const [prefix, setPrefix] = useState('');
  const [label, setLabel] = useState('');
  const [rows, setRows] = useState<readonly Row[]>([]);
  /** Sessions listed (undefined until the first answer for the current filters); whether more are not shown. */
  const [total, setTotal] = useState<number | undefined>(undefined);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    let stopped = false;
    setTotal(undefined);
    const load = async (): Promise<void> => {
      const params = new URLSearchParams({ limit: String(ROWS_SHOWN) });
      if (prefix !== '') params.set('prefix', prefix);
      if (label !== '') params.set('label', label);
      const answer = await getJson<{ sessions: ListedSession[]; next?: string }>(`/v1/sessions?${params}`, props.token);
      if (stopped) return;
      if (!answer.ok) {
        setError(`${answer.code}: ${answer.message}`);
        return;
      }
      setError(undefined);
      setTotal(answer.body.sessions.length);
      setMore(answer.body.next !== undefined);
      const rows = await Promise.all(answer.body.sessions.map((session) => rowOf(session, props.token)));
      if (!stopped) setRows(rows);
    };
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [prefix, label, props.token]);
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
        <input
          placeholder="label filter, e.g. team=red"
          value={label}
          data-testid="label-filter"
          onInput={(event) => setLabel((event.target as HTMLInputElement).value)}
        />
        <span class="muted">{total === undefined ? 'loading…' : `${total}${more ? '+' : ''} sessions`}</span>
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
            <th>title</th>
            <th>labels</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id} data-session={row.id}>
              <td>
                <a href={`/inspect?session=${encodeURIComponent(row.id)}`}>{row.id}</a>
              </td>
              <td>{row.headSeq ?? '–'}</td>
              <td>{row.watchers ?? '–'}</td>
              <td>{row.lastActivity === undefined ? '–' : new Date(row.lastActivity).toLocaleString()}</td>
              <td data-testid="title">{row.title ?? ''}</td>
              <td data-testid="labels">{labelText(row.labels)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {total === 0 && (
        <p class="muted" data-testid="no-sessions">
          {label !== ''
            ? `No session has the label "${label}".`
            : prefix === ''
              ? 'No sessions yet: append to one with the SDK, `session-hub import`, or POST /v1/sessions/:id/events.'
              : `No session id starts with "${prefix}".`}
        </p>
      )}
      {more && <p class="muted">showing the {rows.length} most recently active; narrow with a prefix or a label</p>}
    </div>
  );
}
