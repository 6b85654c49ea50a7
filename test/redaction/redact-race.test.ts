// Redactions racing appends and snapshot builds on two hub nodes (one Redis): after each redaction, no read path —
// the log, HTTP pages, the snapshot, a joiner from the snapshot — returns a redacted secret, and the log stays valid.
import { afterAll, describe, expect, vi } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { Session, deriveMessages, type SessionEvent } from '../../shared/index.ts';
import { test as base } from '../helpers/fixtures.ts';
import type { TestHub } from '../helpers/hub.ts';
import type { EventStore } from '../../server/index.ts';

const WAIT = { timeout: 15_000, interval: 20 };
/** Snapshots every few events, so builds race the redactions. */
const it = base.extend(
  'hubConfig',
  { scope: 'file' },
  { snapshots: { everyEvents: 3, everyBytes: 1_000_000, atTurnEnd: true } },
);

describe('redaction racing appends and snapshot builds', () => {
  let nodes: readonly TestHub[];
  let stores: readonly EventStore[];
  const clients: HubClient[] = [];

  it.beforeAll(({ redisHubs }) => {
    ({ nodes, stores } = redisHubs.cluster);
  });
  afterAll(() => {
    for (const client of clients) client.close();
  });

  it('leaves no secret on any read path after each redaction', async () => {
    const sessionId = 'race/1';
    const writer = new HubClient({ url: nodes[0]!.wsUrl });
    const redactor = new HubClient({ url: nodes[1]!.wsUrl });
    clients.push(writer, redactor);
    const removedTexts: string[] = [];
    let seq = 0;
    let writing = true;
    // Writes user messages carrying a fresh secret each, as fast as they are acked.
    const writes = (async () => {
      while (writing) {
        const secret = `secret-${seq}-${Math.random().toString(36).slice(2)}`;
        const [event] = await writer.append(sessionId, {
          type: 'user/message',
          data: { role: 'user', content: secret },
        });
        seq = event!.seq + 1;
      }
    })();
    await vi.waitFor(() => expect(seq).toBeGreaterThan(5), WAIT);
    const redacted: number[] = [];
    for (let round = 0; round < 6; round++) {
      const head = (await stores[1]!.head(sessionId)).headSeq;
      const log = await stores[1]!.read(sessionId, 0, 10_000);
      const targets = log
        .filter((event) => event.type === 'user/message' && event.seq <= head)
        .map((event) => event.seq);
      const reply = await redactor.redact(sessionId, targets, `round ${round}`);
      redacted.push(...reply.seqs);
      const removed = new Set(targets);
      const gone = log
        .filter((event) => removed.has(event.seq))
        .map((event) => (event.data as { content: string }).content);
      // The store, an HTTP page and the served snapshot hold none of the removed texts.
      const after = await stores[0]!.read(sessionId, 0, 10_000);
      const page = await (
        await fetch(`${nodes[0]!.url}/v1/sessions/${encodeURIComponent(sessionId)}/events?limit=1000`)
      ).text();
      const snapshot = await (
        await fetch(`${nodes[0]!.url}/v1/sessions/${encodeURIComponent(sessionId)}/snapshot`)
      ).text();
      removedTexts.push(...gone.filter((content) => content !== '[redacted]'));
      for (const text of gone.filter((content) => content !== '[redacted]')) {
        expect(JSON.stringify(after)).not.toContain(text);
        expect(page).not.toContain(text);
        expect(snapshot).not.toContain(text);
      }
      expect(() => Session.fromLog(after)).not.toThrow();
    }
    writing = false;
    await writes;
    expect(redacted.length).toBeGreaterThan(5);
    // A joiner from the snapshot, once live, holds exactly the store's log's messages, without a redacted secret.
    await vi.waitFor(
      async () =>
        expect((await fetch(`${nodes[0]!.url}/v1/sessions/${encodeURIComponent(sessionId)}/snapshot`)).status).toBe(
          200,
        ),
      WAIT,
    );
    const joiner = new HubClient({ url: nodes[0]!.wsUrl });
    clients.push(joiner);
    const joined = joiner.subscribe(sessionId, { from: 'snapshot' });
    await joined.whenLive();
    const log: readonly SessionEvent[] = await stores[0]!.read(sessionId, 0, 10_000);
    await vi.waitFor(() => expect(joined.messages).toEqual(deriveMessages(log)), WAIT);
    expect(removedTexts.length).toBe(redacted.length);
    for (const text of removedTexts) expect(JSON.stringify(joined.messages)).not.toContain(text);
  });
});
