import { expect, it } from 'vitest';
import { measurePageSplice } from '../../bench/page-splice.ts';

// A tiny run of the page-splice measurement: every size is measured both ways, and both ways build a page of the
// same bytes. The CPU figures are never asserted.
it('page splice: CPU per page, spliced and decoded + encoded again, for each event size', () => {
  const costs = measurePageSplice({
    sizes: [
      ['small', 10],
      ['large', 300],
    ],
    pageEvents: 20,
    runs: 2,
  });
  expect(costs.map((cost) => [cost.label, cost.textBytes])).toEqual([
    ['small', 10],
    ['large', 300],
  ]);
  for (const cost of costs) {
    expect(Number.isFinite(cost.splicedMs) && cost.splicedMs >= 0).toBe(true);
    expect(Number.isFinite(cost.reencodedMs) && cost.reencodedMs >= 0).toBe(true);
    // Both ways build the same page: the spliced one is measured against its equal.
    expect(cost.splicedBytes).toBe(cost.reencodedBytes);
    expect(cost.splicedBytes).toBeGreaterThan(20 * cost.textBytes);
  }
});
