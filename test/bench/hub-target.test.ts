import { describe, expect } from 'vitest';
import { fillSessionInStore } from '../../bench/baselines/xrange.ts';
import { runFanoutCase, runLatencyCase } from '../../bench/fanout-run.ts';
import { hubTarget } from '../../bench/hub-target.ts';
import { stopAll, type HubTarget } from '../../bench/targets.ts';
import { RedisStore } from '../../server/index.ts';
import { test } from '../helpers/fixtures.ts';

/** The bench's hub target: hub child processes on the file's Redis. */
const it = test.extend('hub', { scope: 'file' }, ({ redis }): HubTarget =>
  hubTarget({ quick: true, redisUrl: redis.url }),
);

describe('hub target of the bench (tiny runs; figures not asserted)', () => {
  it('fan-out across two hub child processes: every subscriber gets every event', async ({ hub }) => {
    const servers = await hub.start(2);
    try {
      const { saturation, atLoad } = await runFanoutCase({
        system: hub.system,
        servers,
        subscribers: 2,
        sessionId: 'smoke-fanout',
        timing: { warmupMs: 50, durationMs: 300 },
      });
      expect(saturation.deliveriesPerSec).toBeGreaterThan(0);
      expect(atLoad.latency?.count).toBeGreaterThan(0);
      expect(atLoad.overloaded).toBe(false);
      const common = await runLatencyCase(
        {
          system: hub.system,
          servers,
          subscribers: 2,
          sessionId: 'smoke-common',
          timing: { warmupMs: 50, durationMs: 300 },
        },
        200,
      );
      expect(common.offeredEventsPerSec).toBe(200);
      expect(common.latency?.count).toBeGreaterThan(0);
    } finally {
      await stopAll(servers);
    }
  });

  it('SDK and raw appenders, then catch-up: a replay from seq 0 sees every stored event, then live', async ({
    hub,
    redis,
  }) => {
    // Like the hub processes, without a key prefix: the store writes where they read.
    const store = await RedisStore.open({ url: redis.url });
    const [server] = await hub.start(1);
    try {
      await fillSessionInStore(store, 'smoke-catchup', 1_500);
      for (const client of ['SDK', 'raw'] as const) {
        const appender = await hub.appender(server!.ports[0]!, client);
        await appender.append('smoke-catchup', 1_500, 16, 0);
        appender.close();
      }
      const run = await hub.catchUp(server!.ports[0]!, 'smoke-catchup');
      expect(run.events).toBe(1_532);
      expect(run.timeToLiveMs).toBeGreaterThanOrEqual(run.lastEventMs);
    } finally {
      await stopAll([server!]);
      await store.close();
    }
  });
});
