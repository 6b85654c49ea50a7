// What the hub-level archive tests share (hub-tiers.test.ts, restore-admin.test.ts): a session's HTTP path, an
// append over HTTP, and a session read from seq 0 as a client reads it (HTTP pages, a WebSocket catch-up).
import { expect } from 'vitest';
import type { TestHub } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

/** A session's path in the HTTP API. */
export const path = (sessionId: string): string => `/v1/sessions/${encodeURIComponent(sessionId)}`;

export async function append(hub: TestHub, sessionId: string, events: readonly object[]): Promise<Response> {
  return fetch(`${hub.url}${path(sessionId)}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events }),
  });
}

/** Every HTTP page of the session from seq 0, `limit` events each, as the raw response bodies. */
export async function httpExport(hub: TestHub, sessionId: string, limit: number): Promise<string[]> {
  const bodies: string[] = [];
  for (let from = 0; ;) {
    const response = await fetch(`${hub.url}${path(sessionId)}/events?from=${from}&limit=${limit}`);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    bodies.push(text);
    const page = JSON.parse(text) as { events: unknown[]; next: number; headSeq: number };
    if (page.events.length === 0 || page.next > page.headSeq) return bodies;
    from = page.next;
  }
}

/** A WebSocket catch-up from seq 0 until live: the events as the client received them. */
export async function wsExport(hub: TestHub, sessionId: string): Promise<string> {
  const client = await RawHubClient.connect(hub.wsUrl);
  try {
    await client.request({ type: 'subscribe', sessionId, fromSeq: 0 });
    await client.waitFor((message) => message.type === 'live' || message.type === 'error');
    expect(client.ofType('error')).toEqual([]);
    return JSON.stringify(client.events(sessionId));
  } finally {
    await client.close();
  }
}
