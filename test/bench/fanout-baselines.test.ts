import { describe, expect } from 'vitest';
import { runFanoutCase } from '../../bench/fanout-run.ts';
import { socketIoTarget, stopAll, wsRelayTarget, type SystemTarget } from '../../bench/targets.ts';
import { test as it } from '../helpers/fixtures.ts';

async function smoke(target: SystemTarget, nodes: number): Promise<void> {
  const servers = await target.start(nodes);
  try {
    const { saturation, atLoad } = await runFanoutCase({
      system: target.system,
      servers,
      subscribers: 3,
      sessionId: `smoke-${nodes}`,
      // Long enough that a loaded machine still sees deliveries in the measured window (300 ms was not: Socket.IO's
      // cross-node path delivered nothing in it under a load average of 14).
      timing: { warmupMs: 200, durationMs: 1000 },
    });
    expect(saturation.deliveriesPerSec).toBeGreaterThan(0);
    expect(saturation.deliveriesPerSec).toBeCloseTo(saturation.eventsPerSec * 3, 6);
    expect(saturation.cost.cpuMs).toBeGreaterThan(0);
    expect(atLoad.latency?.count).toBeGreaterThan(0);
    expect(atLoad.overloaded).toBe(false);
  } finally {
    await stopAll(servers);
  }
}

describe('fan-out harness on the baselines (tiny runs; figures not asserted)', () => {
  it('raw ws relay: subscribers receive the pre-encoded frames, server CPU is sampled', () =>
    smoke(wsRelayTarget(), 1));

  it('Socket.IO on two nodes: the room broadcast crosses nodes through the Redis streams adapter', ({ redis }) =>
    smoke(socketIoTarget({ quick: true, redisUrl: redis.url }), 2));
});
