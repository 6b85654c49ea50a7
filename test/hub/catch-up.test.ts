import { describe, expect } from 'vitest';
import { test } from '../helpers/fixtures.ts';
import type { TestHub } from '../helpers/hub.ts';
import { range, RawHubClient } from '../helpers/raw-hub-client.ts';

const note = (n: number) => ({ type: 'test/note', data: { n } });
const it = test.extend('keyPrefix', { scope: 'file' }, 'cu:');

describe.each([
  { name: 'live batches buffered during catch-up', maxBufferedLiveEvents: 10_000 },
  { name: 'a tiny live buffer (re-reads the store at the hand-over)', maxBufferedLiveEvents: 2 },
])('hub: catch-up then live with $name', ({ maxBufferedLiveEvents }) => {
  let writerHub: TestHub;
  let readerHub: TestHub;

  it.beforeAll(async ({ startRedisHub }) => {
    writerHub = (await startRedisHub()).node;
    readerHub = (await startRedisHub({ limits: { catchUpPageSize: 7, maxBufferedLiveEvents } })).node;
  });

  it('delivers every seq exactly once, in order, from 0 / the middle / the head, while events keep coming', async () => {
    const sessionId = `catch-up-${maxBufferedLiveEvents}`;
    const writer = await RawHubClient.connect(writerHub.wsUrl);
    for (let batch = 0; batch < 10; batch++) {
      const ack = await writer.request({ type: 'append', sessionId, events: range(0, 9).map(note) });
      expect(ack.type).toBe('ack');
    }
    let written = 100;
    let writing = true;
    const writing$ = (async () => {
      while (writing || written < 160) {
        const size = 1 + (written % 3);
        const ack = await writer.request({ type: 'append', sessionId, events: range(1, size).map(note) });
        if (ack.type !== 'ack') throw new Error(JSON.stringify(ack));
        written = ack.lastSeq + 1;
      }
    })();

    const starts = [0, 50, 99, 'head'] as const;
    const readers = await Promise.all(
      starts.map(async (start) => {
        const client = await RawHubClient.connect(readerHub.wsUrl);
        const head = await fetch(`${readerHub.url}/v1/sessions/${sessionId}`).then(
          (response) => response.json() as Promise<{ headSeq: number }>,
        );
        const fromSeq = start === 'head' ? head.headSeq + 1 : start;
        const reply = await client.request({ type: 'subscribe', sessionId, fromSeq });
        if (reply.type !== 'subscribed') throw new Error(JSON.stringify(reply));
        return { client, fromSeq, subscribedHead: reply.headSeq };
      }),
    );
    await Promise.all(readers.map(({ client }) => client.waitFor((message) => message.type === 'live')));
    writing = false;
    await writing$;
    const last = written - 1;
    // The writer kept going while the readers caught up: `live` never announces less than `subscribed` did.
    for (const { client, subscribedHead } of readers) {
      expect(client.ofType('live')[0]!.headSeq).toBeGreaterThanOrEqual(subscribedHead);
    }
    for (const { client, fromSeq } of readers) {
      await client.waitFor((message) => message.type === 'events' && message.events.some((e) => e.seq === last));
      expect(client.seqs(sessionId)).toEqual(range(fromSeq, last));
      expect(client.ofType('live')).toHaveLength(1);
      expect(client.ofType('error')).toEqual([]);
      const live = client.ofType('live')[0]!;
      const liveAt = client.messages.indexOf(live);
      const before = client.messages.slice(0, liveAt).flatMap((m) => (m.type === 'events' ? m.events : []));
      expect(before.at(-1)?.seq ?? fromSeq - 1).toBe(live.headSeq);
      await client.close();
    }
    await writer.close();
  });

  it('refuses a fromSeq beyond the head + 1 with SEQ_OUT_OF_RANGE', async () => {
    const sessionId = `beyond-${maxBufferedLiveEvents}`;
    const client = await RawHubClient.connect(readerHub.wsUrl);
    await client.request({ type: 'append', sessionId, events: [note(0), note(1)] });
    const reply = await client.request({ type: 'subscribe', sessionId, fromSeq: 3 });
    expect(reply).toMatchObject({ type: 'error', code: 'SEQ_OUT_OF_RANGE', sessionId, details: { headSeq: 1 } });
    // The refused subscription left nothing behind: subscribing again works.
    expect(await client.request({ type: 'subscribe', sessionId, fromSeq: 2 })).toMatchObject({
      type: 'subscribed',
      headSeq: 1,
    });
    await client.waitFor((message) => message.type === 'live');
    expect(client.seqs(sessionId)).toEqual([]);
    await client.close();
  });
});
