import { expect } from 'vitest';
import { runAckCase } from '../../bench/ack-run.ts';
import { hubTarget } from '../../bench/hub-target.ts';
import { medianWindows, runWarmupCase, warmupRows } from '../../bench/scenarios/warmup.ts';
import { stopAll, xaddRelayTarget } from '../../bench/targets.ts';
import { test } from '../helpers/fixtures.ts';

// Tiny runs of the append→ack case (writer in a child process) and the fresh-node case: the harness works and
// its figures are well-formed. The figures themselves are never asserted.
test('append→ack with the writer in a process of its own: every append is acknowledged', async ({ redis }) => {
  const hub = hubTarget({ quick: true, redisUrl: redis.url });
  const [server] = await hub.start(1);
  try {
    const latency = await runAckCase({
      system: hub.system,
      server: server!,
      subscribers: 3,
      sessionId: 'smoke-ack',
      ratePerSec: 50,
      timing: { warmupMs: 100, durationMs: 400 },
    });
    expect(latency.count).toBeGreaterThanOrEqual(15);
    expect(latency.p50Ms).toBeGreaterThan(0);
  } finally {
    await stopAll([server!]);
  }
});

test('a fresh node window by window, hub and ws relay + XADD, as table rows', async ({ redis }) => {
  const windows = [0, 200, 600];
  const context = { quick: true, redisUrl: redis.url };
  const hub = await runWarmupCase(hubTarget(context), windows, 50);
  const xadd = await runWarmupCase(xaddRelayTarget(context), windows, 50);
  for (const measured of [hub, xadd]) {
    expect(measured.errors).toBe(0);
    expect(measured.windows.map((window) => [window.fromMs, window.toMs])).toEqual([
      [0, 200],
      [200, 600],
    ]);
    // 30 appends are due in 0.6 s; the last ones may still wait for their ack when the last window closes.
    expect(measured.windows.reduce((sum, window) => sum + window.appends, 0)).toBeLessThanOrEqual(30);
    for (const window of measured.windows) {
      expect(window.appends).toBeGreaterThan(0);
      expect(window.cpuMicrosPerAppend).toBeGreaterThan(0);
    }
  }
  const rows = warmupRows({ systems: { hub, xadd } });
  expect(rows.map((row) => row.metric)).toEqual([
    'server CPU per append, 0–0.2 s after the first',
    'server CPU per append, 0.2–0.6 s after the first (warmed)',
    'CPU per append 1.5–2 s after the first / warmed',
  ]);
  expect(rows[0]!.baseline).toBe(xadd.windows[0]!.cpuMicrosPerAppend);
  // No 1.5–2 s window in so short a run: the ratio row is there, empty, with the relay named as its baseline.
  expect(rows[2]).toMatchObject({ hub: null, baseline: null, baselineName: 'ws relay + XADD' });
});

test('repeated fresh-node runs: each window is the median of the runs, appends and errors are summed', () => {
  const run = (micros: readonly number[], errors = 0) => ({
    ratePerSec: 200,
    errors,
    windows: micros.map((cpuMicrosPerAppend, index) => ({
      fromMs: [0, 1500, 5000][index]!,
      toMs: [1500, 2000, 10_000][index]!,
      appends: 10,
      cpuMicrosPerAppend,
    })),
  });
  const median = medianWindows([run([300, 120, 100]), run([100, 900, 200], 1), run([200, 110, NaN])]);
  expect(median.windows.map((window) => window.cpuMicrosPerAppend)).toEqual([200, 120, 150]);
  expect(median.windows.map((window) => window.appends)).toEqual([30, 30, 30]);
  expect(median.errors).toBe(1);
  const rows = warmupRows({ systems: { hub: median, xadd: run([50, 40, 20]) } });
  expect(rows.at(-1)).toMatchObject({ hub: 120 / 150, baseline: 2, met: true });
});

test('the floors under the warmed window: raw ws relay without Redis, bare Node echo, redis-server ECHO', () => {
  const run = (micros: readonly number[]) => ({
    ratePerSec: 200,
    errors: 0,
    windows: micros.map((cpuMicrosPerAppend, index) => ({
      fromMs: [0, 1500, 20_000][index]!,
      toMs: [1500, 2000, 30_000][index]!,
      appends: 10,
      cpuMicrosPerAppend,
    })),
  });
  const rows = warmupRows({
    systems: { hub: run([900, 800, 600]), xadd: run([500, 400, 300]), ws: run([250, 220, 200]) },
  });
  const floor = rows.filter((row) => row.baselineName === 'raw ws relay (no Redis)');
  expect(floor).toHaveLength(1);
  expect(floor[0]).toMatchObject({ hub: 600, baseline: 200, met: null });
  expect(rows.at(-1)).toMatchObject({ hub: 800 / 600, baseline: 400 / 300 });
});
