import { expect } from 'vitest';
import { measureWakeupFloor } from '../../bench/wakeup-floor.ts';
import { test } from '../helpers/fixtures.ts';

// A tiny run of the wake-up floor: both servers are measured at each rate and the figures are well-formed. The
// figures themselves are never asserted.
test('the wake-up floor: a Node TCP echo process and redis-server ECHO, CPU per message at each rate', async () => {
  const floors = await measureWakeupFloor({ rates: [100, 400], warmupMs: 100, durationMs: 300 });
  expect(floors.map((floor) => floor.ratePerSec)).toEqual([100, 400]);
  for (const floor of floors) {
    expect(floor.nodeEchoMicros).toBeGreaterThan(0);
    expect(Number.isFinite(floor.nodeEchoMicros)).toBe(true);
    expect(floor.redisEchoMicros).toBeGreaterThanOrEqual(0);
    expect(Number.isFinite(floor.redisEchoMicros)).toBe(true);
  }
});
