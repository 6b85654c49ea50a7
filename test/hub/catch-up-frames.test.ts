import { describe, expect } from 'vitest';
import { encodeFrame } from '../../shared/codec.ts';
import { storeEngines } from '../helpers/engines.ts';
import { test, type EngineHubFixture } from '../helpers/fixtures.ts';
import type { TestHub } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

const maxFrameBytes = 64 * 1024;
const blob = (n: number) => ({ type: 'test/blob', data: { n, text: 'x'.repeat(10_000) } });
const engines = storeEngines('cuf:').map((engine) => ({
  name: engine.name,
  it: test
    .extend('engine', { scope: 'file' }, engine)
    .extend('hubConfig', { scope: 'file' }, { limits: { maxFrameBytes, maxEventBytes: 16 * 1024 } }),
}));

/**
 * A catch-up page of 1,000 large events used to go out as one frame (hundreds of MB at the default limits):
 * beyond a client's frame limit (100 MiB for `ws`) the replay could never finish. Pages are cut into frames of
 * about `maxFrameBytes`. Both engines.
 */
describe.each(engines)('hub on the $name engine: catch-up frames are bounded by bytes', ({ it }) => {
  let engine: EngineHubFixture;
  let hub: TestHub;
  it.beforeAll(({ engineHub }) => {
    engine = engineHub;
    hub = engineHub.hub;
  });

  it('replays 120 events of 10 KB in frames under the limit, in order, then goes live', async () => {
    for (let n = 0; n < 120; n += 4) {
      const events = [blob(n), blob(n + 1), blob(n + 2), blob(n + 3)];
      const result = await engine.store.commit({ sessionId: 'big', expectedSeq: n, events });
      expect(result.status).toBe('committed');
    }
    const client = await RawHubClient.connect(hub.wsUrl);
    await client.request({ type: 'subscribe', sessionId: 'big' });
    await client.waitFor((message) => message.type === 'live');
    const frames = client.ofType('events');
    expect(frames.length).toBeGreaterThanOrEqual((120 * 10_000) / maxFrameBytes);
    for (const frame of frames) {
      expect(encodeFrame(frame).byteLength).toBeLessThanOrEqual(maxFrameBytes + 100);
      expect(frame.events.length).toBeGreaterThan(0);
    }
    expect(client.seqs('big')).toEqual([...Array(120).keys()]);
    expect(client.events('big').map((event) => (event.data as { n: number }).n)).toEqual([...Array(120).keys()]);
    await client.close();
  });
});
