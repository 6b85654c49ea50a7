import { useCallback } from 'react';
import type { AppendOptions } from '../appender.ts';
import type { HubClient } from '../hub-client.ts';
import type { EventDraft, SessionEvent } from '../../shared/events.ts';
import { useClientOrContext } from './hub-context.ts';

/** Appends drafts to a session (one event or an atomic batch); resolves with the committed events. */
export type AppendToSession = (
  drafts: EventDraft | readonly EventDraft[],
  options?: AppendOptions,
) => Promise<SessionEvent[]>;

/**
 * A stable function that appends to `sessionId` through `client` (or the `HubProvider`'s): exactly once per call,
 * like `client.append` (pass an `idempotencyKey` to make a retried user action one append). The drafts are checked
 * by the hub, so a bad one rejects with its code (`INVALID_EVENT`, ...).
 */
export function useAppend(client: HubClient | null | undefined, sessionId: string): AppendToSession {
  const chosen = useClientOrContext(client);
  return useCallback(
    (drafts, options) => chosen.append(sessionId, drafts as EventDraft | readonly EventDraft[], options),
    [chosen, sessionId],
  );
}
