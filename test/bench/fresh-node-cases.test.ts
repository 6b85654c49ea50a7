import { expect } from 'vitest';
import { runAckCase } from '../../bench/ack-run.ts';
import { hubTarget } from '../../bench/hub-target.ts';
import { runWarmupCase, warmupRows } from '../../bench/scenarios/warmup.ts';
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
});
