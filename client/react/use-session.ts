import { useCallback, useSyncExternalStore } from 'react';
import type { HubClient } from '../hub-client.ts';
import {
  EMPTY_SESSION_SNAPSHOT,
  sessionView,
  type SessionSnapshot,
  type SessionViewOptions,
} from '../session-store.ts';
import { useClientOrContext } from './hub-context.ts';

export type UseSessionOptions = SessionViewOptions;
export type UseSessionResult = SessionSnapshot;

const noSubscription = (): (() => void) => () => undefined;
const emptySnapshot = (): SessionSnapshot => EMPTY_SESSION_SNAPSHOT;

/**
 * Follow a session: `{ messages, events, status, error, lastSeq, presence }`, re-rendering at most once per
 * animation frame however fast events stream in. Every component that asks for the same (client, session) shares
 * one subscription; it is made when the first of them mounts and closed a moment after the last unmounts (so
 * Strict Mode's double mount and fast refresh keep it). A changed `sessionId` moves to that session's view.
 * `client` null or undefined: the `HubProvider`'s. `sessionId` null or undefined: the empty, loading state. On the
 * server (renderToString, streaming SSR) it renders the empty, loading state and subscribes to nothing.
 * `options` apply when the shared subscription is made (presence if any component asked for it; the first label;
 * `from: 'snapshot'` if any asked for it). `{ from: 'snapshot' }` joins from the hub's projection snapshot: messages
 * exact from the first render that holds messages, `events` only the tail after `snapshotSeq` — fast on long sessions,
 * not the default because `events` then lacks the log before the snapshot.
 */
export function useSession(
  client: HubClient | null | undefined,
  sessionId: string | null | undefined,
  options: UseSessionOptions = {},
): UseSessionResult {
  const chosen = useClientOrContext(client);
  const view = sessionId === null || sessionId === undefined ? undefined : sessionView(chosen, sessionId, options);
  const subscribe = useCallback(
    (listener: () => void) => (view === undefined ? noSubscription() : view.subscribe(listener)),
    [view],
  );
  return useSyncExternalStore(subscribe, view?.getSnapshot ?? emptySnapshot, emptySnapshot);
}
