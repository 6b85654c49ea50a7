import { describe, expect } from 'vitest';
import { test } from '../helpers/fixtures.ts';
import { range, RawHubClient } from '../helpers/raw-hub-client.ts';

const note = (n: number) => ({ type: 'test/n', data: { n } });

/**
 * The store loses the tail of a log but keeps its epoch (a failover to a replica that missed the last writes, a
 * crash before fsync). A subscriber that had received the lost events must not keep them and then get new events
 * under the same seqs: it is reset (same epoch) and rebuilt from what the store holds.
 */
const it = test.extend('keyPrefix', { scope: 'file' }, 'lts:').extend('hubCount', { scope: 'file' }, 1);

describe('hub on Redis: subscribers of a log that lost its tail', () => {
  it('resets a live subscriber when the node reconnects to a store holding fewer events, then goes on', async ({
    redisHubs: fixture,
  }) => {
    const [node] = fixture.cluster.nodes;
    const [store] = fixture.cluster.stores;
    const writer = await RawHubClient.connect(node!.wsUrl);
    const watcher = await RawHubClient.connect(node!.wsUrl);
    await watcher.request({ type: 'subscribe', sessionId: 'tail' });
    const first = await writer.request({ type: 'append', sessionId: 'tail', events: range(0, 9).map(note) });
    const epoch = first.type === 'ack' ? first.epoch : '';
    // The first events frame tells the watcher (subscribed before any write) the epoch the commit created.
    const told = await watcher.waitFor((m) => m.type === 'events');
    expect(told.type === 'events' && [told.epoch, told.events[0]?.seq]).toEqual([epoch, 0]);
    await watcher.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 9));

    // Keep seqs 0..4 only, as a replica that missed the last commit would; the epoch key stays.
    const key = store!.keys('tail').log;
    const kept = (await fixture.admin.xrangeBuffer(key, '-', '+')).slice(0, 5);
    await fixture.admin.del(key);
    for (const [id, fields] of kept) await fixture.admin.xadd(key, id.toString(), ...fields);
    const seen = watcher.messages.length;
    await fixture.admin.client('KILL', 'TYPE', 'pubsub'); // the node's notification connection drops and resyncs

    const reset = await watcher.waitFor((m) => m.type === 'reset', { from: seen, timeoutMs: 15_000 });
    expect(reset).toMatchObject({ type: 'reset', sessionId: 'tail', epoch });
    await watcher.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 4), {
      from: watcher.messages.indexOf(reset),
    });
    const ack = await writer.request({ type: 'append', sessionId: 'tail', events: [note(500)] });
    expect(ack).toMatchObject({ type: 'ack', firstSeq: 5, epoch });
    await watcher.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 5), {
      from: watcher.messages.indexOf(reset),
    });
    expect(watcher.seqs('tail')).toEqual(range(0, 5));
    expect(watcher.events('tail').map((event) => (event.data as { n: number }).n)).toEqual([0, 1, 2, 3, 4, 500]);
    await watcher.close();
    await writer.close();
  });
});
