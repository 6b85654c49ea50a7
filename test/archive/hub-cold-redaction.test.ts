// Redacting archived events through a hub with an archive (HubConfig.archive), both backends: the HTTP redaction
// of a seq archived and trimmed from Redis answers it in `seqs`; afterwards HTTP pages and a WebSocket catch-up on
// another node (which never saw the session) show the placeholder and never the secret; the archive's live data no
// longer holds it; the archiver goes on archiving the session.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { archiveSession } from '../../server/archive/archive-run.ts';
import { it } from '../helpers/fixtures.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';
import type { ArchiveHarness } from './archive-harness.ts';
import { harnessChoices } from './harness-choices.ts';
import { turnDrafts } from './tier-helpers.ts';

const path = (sessionId: string): string => `/v1/sessions/${encodeURIComponent(sessionId)}`;

const post = (url: string, body: object): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe.each(harnessChoices())('redacting archived events through a hub, $name archive', ({ open }) => {
  let harness: ArchiveHarness;

  beforeAll(async () => {
    harness = await open();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('rewrites the archived seq; every read on every node shows the placeholder', async ({ startRedisHub }) => {
    const sessionId = `acme/cold-redact-${randomUUID()}`;
    const secret = `sk-proj-${randomUUID()}`;
    const writer = await startRedisHub({ archive: harness.backend });
    const events = `${writer.node.url}${path(sessionId)}/events`;
    const leaked = [
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'user/message', data: { role: 'user', content: `my key is ${secret}` }, surfaceOp: 'append' },
      { type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } },
    ];
    expect((await post(events, { events: leaked })).status).toBe(201);
    for (const batch of turnDrafts(5, 2)) expect((await post(events, { events: batch })).status).toBe(201);
    const run = await archiveSession({ store: writer.store, archive: harness.backend, sessionId, token: 't1' });
    expect(run).toMatchObject({ status: 'archived' });
    expect((await writer.store.head(sessionId)).firstSeq).toBeGreaterThan(1); // seq 1 is in the archive only
    expect(await harness.liveBytesContain(sessionId, Buffer.from(secret))).toBe(true);

    const reader = await startRedisHub({ archive: harness.backend });
    const redacted = await post(`${reader.node.url}${path(sessionId)}/redactions`, { seqs: [1], reason: 'leaked key' });
    const answer = (await redacted.json()) as { seqs: number[]; cold: number[]; auditSeq: number };
    expect(redacted.status, JSON.stringify(answer)).toBe(200);
    expect(answer).toMatchObject({ seqs: [1], cold: [] });
    expect(await harness.liveBytesContain(sessionId, Buffer.from(secret))).toBe(false);

    for (const hub of [writer, reader]) {
      const page = await fetch(`${hub.node.url}${path(sessionId)}/events?from=0&limit=100`);
      const text = await page.text();
      expect(page.status).toBe(200);
      expect(text).not.toContain(secret);
      expect(text).toContain('[redacted]');
      const client = await RawHubClient.connect(hub.node.wsUrl);
      try {
        await client.request({ type: 'subscribe', sessionId, fromSeq: 0 });
        await client.waitFor((message) => message.type === 'live' || message.type === 'error');
        const caughtUp = client.events(sessionId);
        expect(caughtUp.map((event) => event.seq)).toEqual(Array.from({ length: answer.auditSeq + 1 }, (_, s) => s));
        expect(JSON.stringify(caughtUp)).not.toContain(secret);
      } finally {
        await client.close();
      }
    }

    // Archiving goes on in the redaction's epoch.
    for (const batch of turnDrafts(2, 7)) expect((await post(events, { events: batch })).status).toBe(201);
    const next = await archiveSession({ store: writer.store, archive: harness.backend, sessionId, token: 't2' });
    expect(next).toMatchObject({ status: 'archived', epoch: (await writer.store.head(sessionId)).epoch });
  });
});
