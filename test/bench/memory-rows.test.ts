import { describe, expect, it } from 'vitest';
import type { IdleMemoryResult } from '../../bench/memory-run.ts';
import { memoryRows } from '../../bench/scenarios/memory.ts';

function result(rssKiB: number, heapKiB: number, marginalRssKiB = rssKiB): IdleMemoryResult {
  return {
    connections: 2000,
    rssBeforeBytes: 0,
    rssAfterBytes: rssKiB * 1024 * 2000,
    heapBeforeBytes: 0,
    heapAfterBytes: heapKiB * 1024 * 2000,
    rssPerConnectionBytes: rssKiB * 1024,
    heapPerConnectionBytes: heapKiB * 1024,
    heapTotalPerConnectionBytes: heapKiB * 1024,
    externalPerConnectionBytes: 0,
    marginalRssPerConnectionBytes: marginalRssKiB * 1024,
    marginalHeapPerConnectionBytes: (heapKiB + 1) * 1024, // apart from the first N's, so the heap row can tell
  };
}

describe('memory scenario rows (pure)', () => {
  it("judges the compiled hub's next connections against 10 KiB and 0.55× Socket.IO, shows the first ones and the hub from sources beside it", () => {
    const rows = memoryRows({ hub: result(14, 5, 9), hubSource: result(12, 6), socketio: result(25, 11, 18) });
    expect(rows.map((row) => [row.hub, row.baseline, row.met])).toEqual([
      [9, 18, true],
      [14, 25, null],
      [5, 11, null],
      [12, 25, null],
    ]);
    expect(rows[0]!.metric).toBe('RSS per idle connection, the next 2,000 (after GC), compiled hub');
    expect(rows[2]!.metric).toBe('JS heap per idle connection, the first 2,000 (after GC), compiled hub');
    expect(memoryRows({ hub: result(9, 5), socketio: result(15, 11) })[0]!.met).toBe(false);
    expect(memoryRows({ hub: result(11, 5), socketio: result(30, 11) })[0]!.met).toBe(false);
    expect(memoryRows({ hub: result(9, 5) })[0]!.met).toBeNull();
  });
});
