// A session read through a hub node as its users read it: every HTTP page (raw bodies), a WebSocket catch-up from
// seq 0 until live, and appends over HTTP. The tier tests compare these before and after archiving.
import { expect } from 'vitest';
import type { EventStore } from '../../server/store/event-store.ts';
import type { TestHub } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

export const sessionPath = (sessionId: string): string => `/v1/sessions/${encodeURIComponent(sessionId)}`;

/** `POST /v1/sessions/:id/events` of `events` (an open hub: no token). */
export async function append(hub: TestHub, sessionId: string, events: readonly object[]): Promise<Response> {
  return fetch(`${hub.url}${sessionPath(sessionId)}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events }),
  });
}

/** Every HTTP page of the session from seq 0, `limit` events each, as the raw response bodies. */
export async function httpExport(hub: TestHub, sessionId: string, limit: number): Promise<string[]> {
  const bodies: string[] = [];
  for (let from = 0; ;) {
    const response = await fetch(`${hub.url}${sessionPath(sessionId)}/events?from=${from}&limit=${limit}`);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    bodies.push(text);
    const page = JSON.parse(text) as { events: unknown[]; next: number; headSeq: number };
    if (page.events.length === 0 || page.next > page.headSeq) return bodies;
    from = page.next;
  }
}

/** A WebSocket catch-up from seq 0 until live (or an error): the events as the client received them, the errors. */
export async function wsCatchUp(
  hub: Pick<TestHub, 'wsUrl'>,
  sessionId: string,
): Promise<{ events: string; errors: unknown[] }> {
  const client = await RawHubClient.connect(hub.wsUrl);
  try {
    await client.request({ type: 'subscribe', sessionId, fromSeq: 0 });
    await client.waitFor((message) => message.type === 'live' || message.type === 'error');
    return { events: JSON.stringify(client.events(sessionId)), errors: client.ofType('error') };
  } finally {
    await client.close();
  }
}

/** A WebSocket catch-up from seq 0 until live: the events as the client received them (an error fails). */
export async function wsExport(hub: Pick<TestHub, 'wsUrl'>, sessionId: string): Promise<string> {
  const { events, errors } = await wsCatchUp(hub, sessionId);
  expect(errors).toEqual([]);
  return events;
}

/**
 * Resolves once the session's snapshot (built after each turn end, asynchronously) covers its head: a run's cut
 * stops at the latest snapshot, so a test that expects the whole log archived waits for it first.
 */
export async function untilSnapshotAtHead(store: EventStore, sessionId: string): Promise<void> {
  const { headSeq } = await store.head(sessionId);
  await expect
    .poll(
      async () => {
        const found = await store.snapshots.get(sessionId);
        return found.status === 'found' ? found.snapshot.seq : -1;
      },
      { timeout: 15_000, interval: 20 },
    )
    .toBe(headSeq);
}
