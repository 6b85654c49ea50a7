// Issue 29: reads below a trimmed log's first seq are GONE (with that seq), never an empty or gapped log: HTTP pages
// answer 410, a WebSocket catch-up ends its subscription with an `error` frame, the SDK surfaces a final typed
// error, and `session-hub export` / `tail` say so in one line. Both engines.
import { describe, expect } from 'vitest';
import { HubClient, type HubClientError } from '../../client/index.ts';
import type { EventStore } from '../../server/store/event-store.ts';
import { storeEngines } from '../helpers/engines.ts';
import { test } from '../helpers/fixtures.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';
import { runCliHere } from '../cli/run-cli.ts';

const engines = storeEngines('gone:').map((engine) => ({
  name: engine.name,
  it: test.extend('engine', { scope: 'file' }, engine),
}));
const note = (n: number) => ({ type: 'test/note', data: { n } });

describe.each(engines)('hub on the $name engine: reads below the first seq kept are GONE', ({ it }) => {
  let store: EventStore;
  let hub: TestHub;
  let epoch: string;
  const SESSION = 'acme/trimmed';
  const events = (from: number) => `${hub.url}/v1/sessions/${encodeURIComponent(SESSION)}/events?from=${from}`;

  const append = (body: object[]) =>
    fetch(`${hub.url}/v1/sessions/${encodeURIComponent(SESSION)}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ events: body }),
    });

  it.beforeAll(async ({ engineHub }) => {
    ({ store, hub } = engineHub);
    expect((await append([0, 1, 2, 3, 4, 5].map(note))).status).toBe(201);
    epoch = (await store.head(SESSION)).epoch;
    expect(await store.trim({ sessionId: SESSION, epoch, beforeSeq: 4 })).toMatchObject({ status: 'trimmed' });
  });

  it('HTTP: a page from below the first seq is 410 GONE with details.firstSeq; from it on, the page is served', async () => {
    for (const from of [0, 3]) {
      const response = await fetch(events(from));
      expect(response.status).toBe(410);
      const body = (await response.json()) as { error: { code: string; details: { firstSeq: number } } };
      expect(body.error).toMatchObject({ code: 'GONE', details: { firstSeq: 4 } });
    }
    const kept = await fetch(events(4));
    expect(kept.status).toBe(200);
    const page = (await kept.json()) as { events: { seq: number }[]; headSeq: number; next: number };
    expect(page.events.map((event) => event.seq)).toEqual([4, 5]);
    expect(page).toMatchObject({ headSeq: 5, next: 6 });
    const head = await fetch(`${hub.url}/v1/sessions/${encodeURIComponent(SESSION)}`);
    expect(await head.json()).toEqual({ sessionId: SESSION, epoch, headSeq: 5, firstSeq: 4 });
  });

  it('WebSocket: a catch-up from below ends the subscription with error GONE and firstSeq; from it on, it goes live', async () => {
    const client = await RawHubClient.connect(hub.wsUrl);
    try {
      expect(await client.request({ type: 'subscribe', sessionId: SESSION, fromSeq: 1 })).toMatchObject({
        type: 'subscribed',
        epoch,
        headSeq: 5,
      });
      const gone = await client.waitFor((message) => message.type === 'error');
      expect(gone).toMatchObject({ type: 'error', code: 'GONE', sessionId: SESSION, details: { firstSeq: 4, seq: 1 } });
      expect(client.ofType('events')).toEqual([]); // nothing of the log was sent: no silent gap
      // The subscription is gone: subscribing again is allowed, and from the first seq kept it works.
      await client.request({ type: 'subscribe', sessionId: SESSION, fromSeq: 4 });
      await client.waitFor((message) => message.type === 'live');
      expect(client.seqs(SESSION)).toEqual([4, 5]);
      // Appends go on after the kept events (this node's append cache loaded the session before the trim).
      const appended = await append([note(6)]);
      expect(appended.status).toBe(201);
      expect(await appended.json()).toMatchObject({ epoch, firstSeq: 6, lastSeq: 6 });
      await client.waitFor((message) => message.type === 'events' && message.events.some((event) => event.seq === 6));
      expect(client.seqs(SESSION)).toEqual([4, 5, 6]);
    } finally {
      await client.close();
    }
  });

  it('SDK: a subscription from below ends with a final HubClientError GONE carrying firstSeq', async () => {
    const client = new HubClient({ url: hub.wsUrl });
    try {
      const subscription = client.subscribe(SESSION, { fromSeq: 0 });
      const errors: HubClientError[] = [];
      subscription.on('error', (error) => errors.push(error));
      await new Promise<void>((resolve) => subscription.on('closed', resolve));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ code: 'GONE', sessionId: SESSION, details: { firstSeq: 4 } });
      expect(subscription.state).toBe('closed');
    } finally {
      client.close();
    }
  });

  it('a node that must load the trimmed log to validate an append answers 410 GONE and writes nothing', async () => {
    // Its append cache folds the log from seq 0 (the lifecycle rules need all of it): without the trimmed prefix it
    // cannot validate, and says why. (A store that reads the archived prefix, issue 29, lets it load.)
    const cold = await startHub({ store });
    try {
      const head = await store.head(SESSION);
      const response = await fetch(`${cold.url}/v1/sessions/${encodeURIComponent(SESSION)}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ events: [note(99)] }),
      });
      expect(response.status).toBe(410);
      expect(await response.json()).toMatchObject({ error: { code: 'GONE', details: { firstSeq: 4 } } });
      expect(await store.head(SESSION)).toEqual(head);
    } finally {
      await cold.close();
    }
  });

  it('CLI: export and tail from below fail with one line naming the first seq kept', async () => {
    const exported = await runCliHere(['export', SESSION, '--url', hub.url]);
    expect(exported.code).toBe(1);
    expect(exported.stdout).toBe('');
    const line = `session-hub: GONE: the events of ${SESSION} before seq 4 are no longer held by the hub (trimmed from its log); \`session-hub tail ${SESSION} --from 4\` reads the rest\n`;
    expect(exported.stderr).toBe(line);
    const tailed = await runCliHere(['tail', SESSION, '--url', hub.url]);
    expect(tailed.code).toBe(1);
    expect(tailed.stderr).toBe(line);
    const rest = await runCliHere(['tail', SESSION, '--from', '4', '--json', '--url', hub.url]);
    expect(rest.code).toBe(0);
    expect(
      rest.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { seq: number }).seq),
    ).toEqual([4, 5, 6]);
  });
});
