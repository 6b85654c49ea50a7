import { describe, expect, it } from 'vitest';
import { runClosedLoop, runOpenLoop } from '../../bench/load.ts';

describe('load generators', () => {
  it('open loop: fires rate × duration operations, each stamped with its own evenly spaced intended time', async () => {
    const intended: number[] = [];
    const result = await runOpenLoop({
      ratePerSec: 2000,
      durationMs: 100,
      fire: (intendedMs, index) => {
        expect(index).toBe(intended.length);
        intended.push(intendedMs);
      },
    });
    expect(result.sent).toBe(200);
    expect(result.aborted).toBe(false);
    expect(intended).toHaveLength(200);
    for (let index = 1; index < intended.length; index++) {
      expect(intended[index]! - intended[index - 1]!).toBeCloseTo(0.5, 6);
    }
  });

  it('open loop: stops when abort says so', async () => {
    let fired = 0;
    const result = await runOpenLoop({
      ratePerSec: 1000,
      durationMs: 10_000,
      fire: () => fired++,
      abort: () => fired >= 5,
    });
    expect(result.aborted).toBe(true);
    expect(result.sent).toBe(fired);
  });

  it('closed loop: every worker runs operations and the units are counted', async () => {
    const workersSeen = new Set<number>();
    const result = await runClosedLoop({
      concurrency: 3,
      warmupMs: 0,
      durationMs: 50,
      operation: async (worker) => {
        workersSeen.add(worker);
        await new Promise((resolve) => setImmediate(resolve));
        return 2;
      },
    });
    expect([...workersSeen].sort()).toEqual([0, 1, 2]);
    expect(result.units).toBeGreaterThan(0);
    expect(result.units % 2).toBe(0);
    expect(result.unitsPerSec).toBe((result.units * 1000) / 50);
  });
});
