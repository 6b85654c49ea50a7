import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { storeEngines, type Engine } from '../helpers/engines.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

const WAIT = { timeout: 10_000, interval: 20 };

/**
 * A subscriber that waits on a session nobody wrote, longer than the lifetime of its epoch, sees the first event
 * under a new epoch: a `reset` (of the empty log), then the event from seq 0. Both engines.
 */
describe.each(storeEngines('esl:', { emptySessionEpochTtlMs: 300 }))(
  'hub on the $name engine: a subscriber outwaits the epoch of an empty session',
  ({ open }) => {
    let engine: Engine;
    let hub: TestHub;
    beforeAll(async () => {
      engine = await open();
      hub = await startHub({ store: engine.store });
    });
    afterAll(async () => {
      await hub.close();
      await engine.store.close();
      await engine.stop();
    });

    it('gets reset under the new epoch, then the first event from seq 0', async () => {
      const watcher = await RawHubClient.connect(hub.wsUrl);
      const writer = await RawHubClient.connect(hub.wsUrl);
      const subscribed = await watcher.request({ type: 'subscribe', sessionId: 'quiet' });
      expect(subscribed).toMatchObject({ type: 'subscribed', sessionId: 'quiet' });
      const firstEpoch = subscribed.type === 'subscribed' ? subscribed.epoch : '';
      // Another empty session, read after the subscription, is the clock: once its epoch lapsed, so did quiet's.
      const witness = await engine.store.head('witness');
      await vi.waitFor(async () => expect((await engine.store.head('witness')).epoch).not.toBe(witness.epoch), WAIT);

      const ack = await writer.request({ type: 'append', sessionId: 'quiet', events: [{ type: 'x/y', data: 1 }] });
      expect(ack).toMatchObject({ type: 'ack', firstSeq: 0 });
      const newEpoch = ack.type === 'ack' ? ack.epoch : '';
      expect(newEpoch).not.toBe(firstEpoch);
      await watcher.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 0));
      expect(watcher.ofType('reset')).toEqual([expect.objectContaining({ sessionId: 'quiet', epoch: newEpoch })]);
      expect(watcher.seqs('quiet')).toEqual([0]);
      await watcher.close();
      await writer.close();
    });
  },
);
