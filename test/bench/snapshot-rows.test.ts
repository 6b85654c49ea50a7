import { describe, expect, it } from 'vitest';
import { inspectorJoinRows } from '../../bench/scenarios/inspector-join.ts';
import { snapshotCostRows } from '../../bench/scenarios/snapshot-cost.ts';

const pair = (onMicros: number, offMicros: number) => ({ onMicros, offMicros, onSnapshotSeq: 999 });
const page = (ttiMs: number) => ({ ttiMs, loadedMs: 100, interactiveMs: ttiMs });

describe('bench rows of the snapshot scenarios', () => {
  it('snapshots on vs off: medians of each side and of the pair ratios, met within 1.1×', () => {
    const window = { fromMs: 20_000, toMs: 30_000 };
    const within = snapshotCostRows({
      ratePerSec: 200,
      window,
      pairs: [pair(400, 400), pair(420, 400), pair(380, 400)],
    });
    expect(within.map((row) => [row.hub, row.baseline, row.met])).toEqual([
      [400, 400, true],
      [1, null, true],
    ]);
    const costly = snapshotCostRows({ ratePerSec: 200, window, pairs: [pair(500, 400), pair(460, 400)] });
    expect(costly[0]).toMatchObject({ hub: 480, baseline: 400, met: false });
    expect(costly[1]!.hub).toBeCloseTo(1.2, 10);
    expect(costly[1]!.met).toBe(false);
    expect(snapshotCostRows({ ratePerSec: 200, window, pairs: [] })).toEqual([]);
  });

  it("inspector: the long session's median time to interactive against the short one, met at 1 s", () => {
    const rows = inspectorJoinRows([
      { events: 1000, ttiMs: [700, 800, 900], pages: [page(700), page(800), page(900)] },
      { events: 1_000_000, ttiMs: [1200, 950, 990], pages: [page(1200), page(950), page(990)] },
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ hub: 990, baseline: 800, met: true });
    const slow = inspectorJoinRows([
      { events: 1000, ttiMs: [700], pages: [page(700)] },
      { events: 1_000_000, ttiMs: [1001], pages: [page(1001)] },
    ]);
    expect(slow[0]).toMatchObject({ met: false });
  });
});
