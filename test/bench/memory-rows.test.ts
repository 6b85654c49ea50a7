import { describe, expect, it } from 'vitest';
import type { IdleMemoryResult } from '../../bench/memory-run.ts';
import { memoryRows } from '../../bench/scenarios/memory.ts';

function result(rssKiB: number, heapKiB: number): IdleMemoryResult {
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
  };
}

describe('memory scenario rows (pure)', () => {
  it('judges the compiled hub against 10 KiB and 0.55× Socket.IO, and shows the hub from sources beside it', () => {
    const rows = memoryRows({ hub: result(9, 5), hubSource: result(12, 6), socketio: result(18, 11) });
    expect(rows.map((row) => [row.hub, row.baseline, row.met])).toEqual([
      [9, 18, true],
      [5, 11, null],
      [12, 18, null],
    ]);
    expect(memoryRows({ hub: result(9, 5), socketio: result(15, 11) })[0]!.met).toBe(false);
    expect(memoryRows({ hub: result(11, 5), socketio: result(30, 11) })[0]!.met).toBe(false);
    expect(memoryRows({ hub: result(9, 5) })[0]!.met).toBeNull();
  });
});
