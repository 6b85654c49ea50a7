import { afterEach, describe, expect, it, vi } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { MemoryStore } from '../../server/index.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { HeldStore } from './hubs.ts';

const WAIT = { timeout: 10_000, interval: 5 };

describe('SDK: pipelined appends to one session', () => {
  let hub: TestHub | undefined;
  let client: HubClient | undefined;
  afterEach(async () => {
    client?.close();
    await hub?.close();
  });

  const commits = async (): Promise<{ count: number; sum: number }> => {
    const values = (await hub!.hub.metrics.groupCommitAppends.get()).values;
    const find = (suffix: string) => values.find((value) => value.metricName?.endsWith(suffix))?.value ?? 0;
    return { count: find('_count'), sum: find('_sum') };
  };

  it('sends appends ahead of their acks, so the hub commits them together, in call order', async () => {
    const store = new HeldStore();
    hub = await startHub({ store });
    client = new HubClient({ url: hub.wsUrl });
    const appends = Array.from({ length: 20 }, (_, n) => client!.append('pipe/1', { type: 'test/n', data: { n } }));
    // All 20 reach the hub while the first commit is held: none waits for an earlier ack.
    await vi.waitFor(async () => expect((await hub!.hub.metrics.appendsQueued.get()).values[0]?.value).toBe(20), WAIT);
    store.release();
    const committed = await Promise.all(appends);
    expect(committed.map(([event]) => event?.seq)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    // One or two group commits for the 20 appends (the first may go alone if it reached the hub first).
    const { count, sum } = await commits();
    expect(sum).toBe(20);
    expect(count).toBeLessThanOrEqual(2);
  });

  it('keeps call order when the hub rate-limits some of them (they are re-sent behind the refused one)', async () => {
    const store = new MemoryStore();
    hub = await startHub({ store, limits: { appendsPerSecond: 200, appendBurst: 3 } });
    client = new HubClient({ url: hub.wsUrl, reconnect: { initialDelayMs: 5, maxDelayMs: 20 } });
    const appends = Array.from({ length: 30 }, (_, n) => client!.append('pipe/2', { type: 'test/n', data: { n } }));
    const committed = await Promise.all(appends);
    expect(committed.map(([event]) => event?.seq)).toEqual(Array.from({ length: 30 }, (_, n) => n));
    const stored = await store.read('pipe/2', 0, 100);
    expect(stored.map((event) => (event.data as { n: number }).n)).toEqual(Array.from({ length: 30 }, (_, n) => n));
    // The limiter did refuse some of them (else this test would prove nothing).
    const refused = (await hub.hub.metrics.errors.get()).values.filter(
      (value) => value.labels['code'] === 'RATE_LIMITED',
    );
    expect(refused.reduce((sum, value) => sum + value.value, 0)).toBeGreaterThan(0);
  });

  it('can be limited to one append in flight per session', async () => {
    const store = new HeldStore();
    hub = await startHub({ store });
    client = new HubClient({ url: hub.wsUrl, maxAppendsInFlightPerSession: 1 });
    const appends = Array.from({ length: 5 }, (_, n) => client!.append('pipe/3', { type: 'test/n', data: { n } }));
    await vi.waitFor(async () => expect((await hub!.hub.metrics.appendsQueued.get()).values[0]?.value).toBe(1), WAIT);
    store.release();
    const committed = await Promise.all(appends);
    expect(committed.map(([event]) => event?.seq)).toEqual([0, 1, 2, 3, 4]);
    expect((await commits()).count).toBe(5);
  });
});
