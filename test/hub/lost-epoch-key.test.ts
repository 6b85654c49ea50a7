import { describe, expect } from 'vitest';
import { test, type RedisHubsFixture } from '../helpers/fixtures.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

const note = (n: number) => ({ type: 'test/n', data: { n } });

const it = test.extend('keyPrefix', { scope: 'file' }, 'lek:').extend('hubCount', { scope: 'file' }, 1);

/**
 * A log whose epoch key vanished (deleted by hand, or evicted): reads never recreate it, so the session reads as
 * having no epoch; the next append (at the log's length) gives it a new one, and subscribers are reset and get
 * the whole log again under it.
 */
describe('hub on Redis: a log whose epoch key is gone', () => {
  let fixture: RedisHubsFixture;
  it.beforeAll(({ redisHubs }) => {
    fixture = redisHubs;
  });

  it('takes the next append at the log length under a new epoch, and resets its subscribers', async () => {
    const [node] = fixture.cluster.nodes;
    const client = await RawHubClient.connect(node!.wsUrl);
    try {
      const first = await client.request({ type: 'append', sessionId: 'k', events: [note(0), note(1)] });
      const old = first.type === 'ack' ? first.epoch : '';
      expect(old).not.toBe('');
      await client.request({ type: 'subscribe', sessionId: 'k' });
      await client.waitFor((m) => m.type === 'live');
      await fixture.admin.del(fixture.cluster.stores[0]!.keys('k').epoch);
      expect(await (await fetch(`${node!.url}/v1/sessions/k`)).json()).toEqual({
        sessionId: 'k',
        epoch: '',
        headSeq: 1,
      });
      expect(await fixture.admin.exists(fixture.cluster.stores[0]!.keys('k').epoch)).toBe(0);

      const next = await client.request({ type: 'append', sessionId: 'k', events: [note(2)] });
      expect(next).toMatchObject({ type: 'ack', firstSeq: 2 });
      const epoch = next.type === 'ack' ? next.epoch : '';
      expect(['', old]).not.toContain(epoch);
      const reset = await client.waitFor((m) => m.type === 'reset');
      expect(reset).toMatchObject({ epoch });
      await client.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 2), {
        from: client.messages.indexOf(reset),
      });
      expect(client.seqs('k')).toEqual([0, 1, 2]);
    } finally {
      await client.close();
    }
  });
});
