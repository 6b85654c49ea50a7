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
import { catchUpRows } from '../../bench/scenarios/catchup.ts';
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
  const xrangeCpu = { readerMsPer1k: cpu / 2, redisMsPer1k: cpu / 4 };
  const hubSideCpu = { readerMsPer1k: cpu * 2, redisMsPer1k: cpu / 8 };
  return { xrange, hub, ratio: hubPerSec / xrangePerSec, xrangeCpu, hubSideCpu };
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
    expect(summary?.xrangeCpu).toEqual({ readerMsPer1k: 3.5, redisMsPer1k: 1.75 });
    expect(summary?.hubSideCpu).toEqual({ readerMsPer1k: 14, redisMsPer1k: 0.875 });
    expect(summarizeRounds([])).toBeUndefined();
  });

  it('adds up every process of a replay for the CPU row: the hub, its subscriber and Redis against reader and Redis', () => {
    const summary = summarizeRounds([round(100, 50, 8)])!;
    const rows = catchUpRows(summary);
    const all = rows.find((row) => row.metric.startsWith('CPU per 1k events, every process'));
    expect(all?.hub).toBe(8 + 16 + 1); // hub 8, its subscriber 16, Redis 1
    expect(all?.baseline).toBe(4 + 2); // reader 4, Redis 2
    const reader = rows.find((row) => row.metric.startsWith('CPU per 1k events of the reader'));
    expect([reader?.hub, reader?.baseline]).toEqual([16, 4]);
    const none = catchUpRows({ xrange: summary.xrange });
    expect(none.find((row) => row.metric.startsWith('CPU per 1k events, every process'))?.hub).toBeNull();
  });

  it('runs interleaved replays of the same stream on one hub process, each replay complete', async ({ hub, redis }) => {
    const store = await RedisStore.open({ url: redis.url });
    try {
      await fillSessionInStore(store, 'rounds-catchup', 2_500);
      const stream = { key: store.keys('rounds-catchup').log, sessionId: 'rounds-catchup', pageSize: 1000 };
      const rounds = await runCatchUpRounds(hub, redis.url, stream, 2);
      expect(rounds).toHaveLength(2);
      for (const { xrange, hub: replay, ratio, xrangeCpu, hubSideCpu } of rounds) {
        expect(xrange.events).toBe(2_500);
        expect(replay.events).toBe(2_500);
        expect(replay.cpuMsPer1kEvents).toBeGreaterThan(0);
        // Both readers decode every event, and Redis serves both replays' pages.
        for (const cpu of [xrangeCpu, hubSideCpu]) {
          expect(cpu.readerMsPer1k).toBeGreaterThan(0);
          expect(cpu.redisMsPer1k).toBeGreaterThan(0);
        }
        expect(ratio).toBeCloseTo(replay.eventsPerSec / xrange.eventsPerSec);
      }
    } finally {
      await store.close();
    }
  });
});
