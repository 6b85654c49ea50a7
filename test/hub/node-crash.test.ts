import { afterAll, describe, expect } from 'vitest';
import { test } from '../helpers/fixtures.ts';
import { HubProcess } from '../helpers/hub-process.ts';
import type { TestHub } from '../helpers/hub.ts';
import { range, RawHubClient } from '../helpers/raw-hub-client.ts';

const note = (n: number) => ({ type: 'test/note', data: { n } });
const it = test.extend('keyPrefix', { scope: 'file' }, 'crash:');

describe('hub: a node killed with SIGKILL', () => {
  let survivor: TestHub;
  // A child process: the test kills it.
  let doomed: HubProcess;

  it.beforeAll(async ({ redis, keyPrefix, redisHub }) => {
    survivor = redisHub;
    doomed = await HubProcess.start(['--redis', redis.url, '--key-prefix', keyPrefix]);
  });
  afterAll(async () => {
    await doomed.kill();
  });

  it("lets the dead node's clients resume on the other node from their seq: no gap, no duplicate", async () => {
    expect(doomed.stdout).toMatch(/engine: redis/);
    const sessionId = 'crash';
    const writer = await RawHubClient.connect(survivor.wsUrl);
    const watcher = await RawHubClient.connect(doomed.wsUrl);
    // Subscribed before the first write: the session has no epoch yet.
    expect(await watcher.request({ type: 'subscribe', sessionId })).toMatchObject({ type: 'subscribed', epoch: '' });
    const first = await writer.request({ type: 'append', sessionId, events: [note(0)] });
    if (first.type !== 'ack') throw new Error(JSON.stringify(first));
    for (let n = 1; n < 10; n++) await writer.request({ type: 'append', sessionId, events: [note(n)] });
    await watcher.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 9));
    // The first events frame told the watcher the epoch the first commit created; no other frame repeats it.
    const told = watcher.ofType('events').filter((m) => m.epoch !== undefined);
    expect(told.map((m) => [m.epoch, m.events[0]?.seq])).toEqual([[first.epoch, 0]]);
    // The dead node's own writer: its last append was acked before the crash.
    const doomedWriter = await RawHubClient.connect(doomed.wsUrl);
    expect(await doomedWriter.request({ type: 'append', sessionId, events: [note(10)] })).toMatchObject({
      type: 'ack',
      firstSeq: 10,
    });
    await watcher.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 10));

    await doomed.kill();
    const closed = await watcher.closed;
    expect(closed.code).toBe(1006);
    // Events keep coming while the watcher is away.
    for (let n = 11; n < 15; n++) await writer.request({ type: 'append', sessionId, events: [note(n)] });

    const seen = watcher.events(sessionId);
    const lastSeq = seen.at(-1)!.seq;
    const resumed = await RawHubClient.connect(survivor.wsUrl);
    const again = await resumed.request({
      type: 'subscribe',
      sessionId,
      fromSeq: lastSeq + 1,
      epoch: first.epoch,
    });
    expect(again).toMatchObject({ type: 'subscribed', epoch: first.epoch });
    for (let n = 15; n < 20; n++) await writer.request({ type: 'append', sessionId, events: [note(n)] });
    await resumed.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 19));
    const all = [...seen, ...resumed.events(sessionId)];
    expect(all.map((event) => event.seq)).toEqual(range(0, 19));
    expect(all.map((event) => (event.data as { n: number }).n)).toEqual(range(0, 19));
    expect(resumed.ofType('reset')).toEqual([]);
    await Promise.all([writer.close(), resumed.close(), doomedWriter.closed]);
  });
});
