// One session, live: derived messages beside the raw log, time travel, watchers' view of the connection, export.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { HubClient, type SessionMetadata, type Subscription, type Watcher } from '../../client/index.ts';
import { deriveMessages, toJsonl, type DerivedMessage, type SessionEvent } from '../../shared/index.ts';
import { EventLog } from './event-log.tsx';
import { getJson, hubSocketUrl, tokenGrants } from './hub-access.ts';
import { LogView } from './session-model.ts';
import { OLDER_PAGE_EVENTS, readEventRange } from './older-events.ts';
import { Transcript } from './transcript.tsx';
import { AppendBox } from './append-box.tsx';
import { Watchers } from './watchers.tsx';
import { MetadataEditor } from './metadata-editor.tsx';
import { ForkHere } from './fork-here.tsx';

interface Snapshot {
  readonly events: readonly SessionEvent[];
  readonly messages: readonly DerivedMessage[];
  readonly view: LogView;
  readonly watchers: readonly Watcher[];
  /** Title, labels and creation, as last heard (`metadata` frames). */
  readonly metadata: SessionMetadata | undefined;
  /** The seq of the hub snapshot the subscription started on (-1: none, its events start at 0). */
  readonly snapshotSeq: number;
}

interface Status {
  readonly connection: string;
  readonly subscription: string;
  readonly headAtOpen: number | undefined;
  /** The hub answered the head request without a token: an open hub. */
  readonly openHub: boolean;
  readonly lagMs: number | undefined;
  readonly error: string | undefined;
}

/** Subscribes through the SDK and re-renders at most once per animation frame, however fast events arrive. */
function useSession(sessionId: string, token: string | undefined) {
  const [snapshot, setSnapshot] = useState<Snapshot>({
    events: [],
    messages: [],
    view: new LogView(),
    watchers: [],
    metadata: undefined,
    snapshotSeq: -1,
  });
  const [status, setStatus] = useState<Status>({
    connection: 'connecting',
    subscription: 'pending',
    headAtOpen: undefined,
    openHub: false,
    lagMs: undefined,
    error: undefined,
  });
  const clientRef = useRef<HubClient | undefined>(undefined);
  // Events before the subscription's first one (it starts on the hub's snapshot), paged in over HTTP on demand.
  const [older, setOlder] = useState<readonly SessionEvent[]>([]);
  const [olderError, setOlderError] = useState<string | undefined>(undefined);
  const loading = useRef(false);
  const generation = useRef(0);
  useEffect(() => {
    generation.current += 1;
    setOlder([]);
    const client = new HubClient({ url: hubSocketUrl(), ...(token === undefined ? {} : { token }) });
    clientRef.current = client;
    let view = new LogView();
    let frame: number | undefined;
    let lagMs: number | undefined;
    const render = (): void => {
      frame = undefined;
      setSnapshot({
        events: subscription.events,
        messages: subscription.messages,
        view,
        watchers: subscription.presence,
        metadata: subscription.metadata,
        snapshotSeq: subscription.snapshotSeq ?? -1,
      });
      setStatus((previous) => ({ ...previous, subscription: subscription.state, lagMs }));
    };
    const schedule = (): void => {
      frame ??= requestAnimationFrame(render);
    };
    client.on('state', (next) => setStatus((previous) => ({ ...previous, connection: next })));
    client.on('error', (error) => setStatus((previous) => ({ ...previous, error: `${error.code}: ${error.message}` })));
    void getJson<{ headSeq: number }>(`/v1/sessions/${encodeURIComponent(sessionId)}`, token).then((answer) => {
      if (answer.ok) {
        const openHub = token === undefined;
        setStatus((previous) => ({ ...previous, headAtOpen: answer.body.headSeq, openHub }));
      }
    });
    const subscription: Subscription = client.subscribe(sessionId, {
      presence: true,
      label: 'inspector',
      from: 'snapshot',
      metadata: true,
    });
    subscription.on('presence', schedule);
    subscription.on('metadata', schedule);
    subscription.on('event', (event) => {
      view.add(event);
      if (subscription.state === 'live') lagMs = Math.max(0, Date.now() - event.time);
      schedule();
    });
    subscription.on('messages', schedule);
    subscription.on('live', schedule);
    subscription.on('reset', () => {
      view = new LogView();
      generation.current += 1;
      setOlder([]);
      schedule();
    });
    subscription.on('error', (error) =>
      setStatus((previous) => ({ ...previous, error: `${error.code}: ${error.message}` })),
    );
    subscription.on('closed', schedule);
    return () => {
      if (frame !== undefined) cancelAnimationFrame(frame);
      client.close();
    };
  }, [sessionId, token]);
  /** Pages in the events from `target` up to the first one held (nothing when they are there or a read is on). */
  const loadOlder = (firstHeld: number, target: number): void => {
    const from = Math.max(0, target);
    if (loading.current || from >= firstHeld) return;
    loading.current = true;
    const started = generation.current;
    readEventRange(sessionId, from, firstHeld - 1, token)
      .then((events) => {
        if (generation.current === started) setOlder((previous) => [...events, ...previous]);
      })
      .catch((error: unknown) => setOlderError(error instanceof Error ? error.message : String(error)))
      .finally(() => {
        loading.current = false;
      });
  };
  return { snapshot, status, client: clientRef, older, olderError, loadOlder };
}

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  URL.revokeObjectURL(url);
}

export function SessionView(props: { sessionId: string; token: string | undefined }) {
  const { sessionId, token } = props;
  const { snapshot, status, client, older, olderError, loadOlder } = useSession(sessionId, token);
  const { view } = snapshot;
  const events = useMemo(
    () => (older.length === 0 ? snapshot.events : [...older, ...snapshot.events]),
    [older, snapshot.events],
  );
  const lastSeq = events.length === 0 ? snapshot.snapshotSeq : events[events.length - 1]!.seq;
  // The first seq held: the subscription's first event, or the one after the hub's snapshot while the tail is empty.
  const firstSeq = events[0]?.seq ?? snapshot.snapshotSeq + 1;
  const [travelAt, setTravelAt] = useState<number | undefined>(undefined);
  const [selected, setSelected] = useState<number | undefined>(undefined);
  const at = travelAt !== undefined && travelAt < lastSeq ? travelAt : undefined;
  const shownEvents = useMemo(
    () => (at === undefined ? events : events.slice(0, Math.max(0, at - firstSeq + 1))),
    [events, at, firstSeq],
  );
  // Time travel derives the messages as of `at` from the log from seq 0: the older events are paged in first.
  const travelWaits = at !== undefined && firstSeq > 0;
  useEffect(() => {
    if (travelWaits) loadOlder(firstSeq, 0);
  }, [travelWaits, firstSeq]);
  const messages = useMemo(
    () => (at === undefined ? snapshot.messages : travelWaits ? [] : deriveMessages(shownEvents)),
    [at, travelWaits, snapshot.messages, shownEvents],
  );
  const catchingUp = status.subscription === 'catching-up' || status.subscription === 'subscribing';
  const head = status.headAtOpen ?? -1;
  // Append controls: on an open hub, or when the token grants append here (the hub checks every append anyway).
  const mayAppend = token === undefined ? status.openHub : tokenGrants(token, 'append', sessionId);
  // "Fork here": the fork needs read here (the page has it) and append on the new id, which the hub names.
  const mayFork = token === undefined ? status.openHub : tokenGrants(token, 'append', forkIdPattern(sessionId));
  return (
    <div class="session-view">
      <header class="bar">
        <a href="/inspect">← sessions</a>
        <h1 data-testid="session-id">{sessionId}</h1>
        <span class={`state state-${status.subscription}`} data-testid="subscription-state">
          {status.subscription}
        </span>
        <span class="muted">connection: {status.connection}</span>
        <span class="muted" data-testid="last-seq">
          seq {lastSeq}
        </span>
        {status.lagMs !== undefined && <span class="muted">lag {status.lagMs} ms</span>}
        <Watchers watchers={snapshot.watchers} />
        <button onClick={() => download(`${sessionId.replace(/[^\w.-]/g, '_')}.jsonl`, toJsonl(events))}>
          Export JSONL
        </button>
      </header>
      <MetadataEditor client={client.current} sessionId={sessionId} metadata={snapshot.metadata} editable={mayAppend} />
      {olderError !== undefined && (
        <p class="error" data-testid="older-error">
          older events: {olderError}
        </p>
      )}
      {status.error !== undefined && (
        <p class="error" data-testid="error">
          {status.error}
        </p>
      )}
      {catchingUp && head > 0 && (
        <progress data-testid="catch-up" max={head + 1} value={lastSeq + 1} title="catching up" />
      )}
      <div class="travel">
        <label>
          time travel: seq{' '}
          <input
            type="range"
            min={0}
            max={Math.max(0, lastSeq)}
            value={at ?? lastSeq}
            data-testid="time-travel"
            onInput={(event) => {
              const value = Number((event.target as HTMLInputElement).value);
              setTravelAt(value >= lastSeq ? undefined : value);
            }}
          />{' '}
          <span data-testid="travel-at">
            {at === undefined ? 'live' : travelWaits ? `loading seqs 0–${firstSeq - 1}…` : `as of seq ${at}`}
          </span>
        </label>
        {at !== undefined && <button onClick={() => setTravelAt(undefined)}>back to live</button>}
        {at !== undefined && mayFork && client.current !== undefined && (
          <ForkHere key={at} client={client.current} sessionId={sessionId} atSeq={at} />
        )}
      </div>
      <main class="panes">
        <section class="pane">
          <h2>Derived messages ({messages.length})</h2>
          <Transcript
            messages={messages}
            streaming={at === undefined ? view.streamingText : ''}
            follow={at === undefined}
          />
        </section>
        <section class="pane">
          <h2>
            Event log ({shownEvents.length}
            {firstSeq > 0 && `, seqs ${firstSeq}–${lastSeq}`})
            {firstSeq > 0 && (
              <button
                data-testid="load-older"
                onClick={() => loadOlder(firstSeq, firstSeq - OLDER_PAGE_EVENTS)}
                title="or scroll up"
              >
                older events
              </button>
            )}
          </h2>
          <EventLog
            onNearStart={() => loadOlder(firstSeq, firstSeq - OLDER_PAGE_EVENTS)}
            events={shownEvents}
            replacedBy={view.replacedBy}
            selected={selected}
            onSelect={setSelected}
            follow={at === undefined}
          />
        </section>
      </main>
      {mayAppend && client.current !== undefined && <AppendBox client={client.current} sessionId={sessionId} />}
    </div>
  );
}

/** An id the hub may give a fork of `sessionId` (its tenant prefix, then `fork-…`), to test the token's grants on. */
function forkIdPattern(sessionId: string): string {
  return `${sessionId.slice(0, sessionId.lastIndexOf('/') + 1)}fork-`;
}
