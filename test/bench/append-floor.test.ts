import { expect } from 'vitest';
import { runRelayAppend } from '../../bench/scenarios/append-floor.ts';
import { appendRows } from '../../bench/scenarios/append.ts';
import { test } from '../helpers/fixtures.ts';

// A tiny run of the ws relay + XADD under the one-event append workload, and its table row. Figures are never
// asserted, only that the harness measures something and puts it next to the hub's figure.
test('the ws relay + XADD at saturation: events acked, server CPU per event measured, shown beside the hub', async ({
  redis,
}) => {
  const relay = await runRelayAppend({ quick: true, redisUrl: redis.url }, 2, 8, { warmupMs: 100, durationMs: 300 });
  expect(relay.eventsPerSec).toBeGreaterThan(0);
  expect(relay.cpuMsPer1kEvents).toBeGreaterThan(0);
  const rows = appendRows({ xadd: {}, hub: {}, hubRaw: {}, relay });
  expect(rows).toEqual([]); // no hub and no XADD figures: no rows at all
  const hub = {
    client: 'SDK' as const,
    batch: 1,
    sessions: 1,
    connections: 1,
    eventsPerSec: 1,
    cpuMsPer1kEvents: 30,
    clientCpuMsPer1kEvents: 1,
    lagP99Ms: 1,
    latencyAtHalfLoad: { count: 1, p50Ms: 1, p99Ms: 1, p999Ms: 1, maxMs: 1 },
    errors: 0,
  };
  const row = appendRows({ xadd: {}, hub: { '1': hub }, hubRaw: {}, relay }).find((candidate) =>
    candidate.metric.startsWith('server CPU per append at saturation'),
  );
  expect(row).toMatchObject({ hub: 30, baselineName: 'ws relay + XADD', baseline: relay.cpuMsPer1kEvents, met: false });
});
