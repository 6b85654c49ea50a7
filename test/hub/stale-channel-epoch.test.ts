import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { test } from '../helpers/fixtures.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

/**
 * A node whose channel missed an epoch change (the epoch key replaced, a notice lost) must not
 * answer a client holding the current epoch with the stale one (subscribed and reset under an epoch that is gone).
 */
const it = test.extend('keyPrefix', { scope: 'file' }, 'sce:');

describe('hub on Redis: a subscriber holding a newer epoch than the node', () => {
  it('is answered under the current epoch, with no reset', async ({ redisHubs: fixture }) => {
    const [nodeA, nodeB] = fixture.cluster.nodes;
    const watcherA = await RawHubClient.connect(nodeA!.wsUrl); // keeps node A's channel of the session open
    const subscribedA = await watcherA.request({ type: 'subscribe', sessionId: 's' });
    await watcherA.request({ type: 'append', sessionId: 's', events: [{ type: 'x/y', data: 1 }] });
    const stale = subscribedA.type === 'subscribed' ? subscribedA.epoch : '';
    await fixture.admin.set(fixture.cluster.stores[0]!.keys('s').epoch, randomUUID()); // replaced without a notice
    const onB = await RawHubClient.connect(nodeB!.wsUrl);
    const subscribedB = await onB.request({ type: 'subscribe', sessionId: 's' });
    const current = subscribedB.type === 'subscribed' ? subscribedB.epoch : '';
    expect(current).not.toBe(stale);
    expect(current).not.toBe('');
    await onB.waitFor((message) => message.type === 'live');

    const moved = await RawHubClient.connect(nodeA!.wsUrl);
    const reply = await moved.request({ type: 'subscribe', sessionId: 's', fromSeq: 1, epoch: current });
    expect(reply).toMatchObject({ type: 'subscribed', epoch: current, headSeq: 0 });
    await moved.waitFor((message) => message.type === 'live');
    expect(moved.ofType('reset')).toEqual([]);
    await Promise.all([watcherA, onB, moved].map((client) => client.close()));
  });
});
