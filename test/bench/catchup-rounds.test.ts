import { describe, expect } from 'vitest';
import { fillSessionInStore, type ReplayResult } from '../../bench/baselines/xrange.ts';
import { hubTarget } from '../../bench/hub-target.ts';
import {
  median,
  runCatchUpRounds,
  summarizeRounds,
  type CatchUpRound,
  type HubCatchUpResult,
} from '../../bench/scenarios/catchup-rounds.ts';
import type { HubTarget } from '../../bench/targets.ts';
import { RedisStore } from '../../server/index.ts';
import { test } from '../helpers/fixtures.ts';

const it = test.extend('hub', { scope: 'file' }, ({ redis }): HubTarget =>
  hubTarget({ quick: true, redisUrl: redis.url }),
);

function round(xrangePerSec: number, hubPerSec: number, cpu: number): CatchUpRound {
  const xrange: ReplayResult = { events: 10, pageSize: 5, elapsedMs: 1, eventsPerSec: xrangePerSec };
  const hub: HubCatchUpResult = {
    events: 10,
    lastEventMs: 1,
    timeToLiveMs: hubPerSec, // tells the rounds apart
    eventsPerSec: hubPerSec,
    cpuMsPer1kEvents: cpu,
    lagP99Ms: cpu * 10,
  };
  return { xrange, hub, ratio: hubPerSec / xrangePerSec };
}

describe('catch-up rounds of the bench', () => {
  it('median takes the lower middle value, NaN for none', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2);
    expect(median([])).toBeNaN();
  });

  it('summarizes rounds by their medians: each side on its own, the ratio of the pairs, CPU and lag apart', () => {
    const rounds = [round(100, 50, 9), round(400, 100, 5), round(200, 300, 7)];
    const summary = summarizeRounds(rounds);
    expect(summary?.xrange.eventsPerSec).toBe(200);
    expect(summary?.hub.eventsPerSec).toBe(100);
    expect(summary?.hub.timeToLiveMs).toBe(100); // the median run's own figures
    expect(summary?.hub.cpuMsPer1kEvents).toBe(7);
    expect(summary?.hub.lagP99Ms).toBe(70);
    expect(summary?.ratio).toBe(0.5); // ratios 0.5, 0.25, 1.5
    expect(summarizeRounds([])).toBeUndefined();
  });

  it('runs interleaved replays of the same stream on one hub process, each replay complete', async ({ hub, redis }) => {
    const store = await RedisStore.open({ url: redis.url });
    try {
      await fillSessionInStore(store, 'rounds-catchup', 2_500);
      const stream = { key: store.keys('rounds-catchup').log, sessionId: 'rounds-catchup', pageSize: 1000 };
      const rounds = await runCatchUpRounds(hub, redis.url, stream, 2);
      expect(rounds).toHaveLength(2);
      for (const { xrange, hub: replay, ratio } of rounds) {
        expect(xrange.events).toBe(2_500);
        expect(replay.events).toBe(2_500);
        expect(replay.cpuMsPer1kEvents).toBeGreaterThan(0);
        expect(ratio).toBeCloseTo(replay.eventsPerSec / xrange.eventsPerSec);
      }
    } finally {
      await store.close();
    }
  });
});
