import { expect, it } from 'vitest';
import { measurePageSplice } from '../../bench/page-splice.ts';

// A tiny run of the page-splice measurement: every size is measured both ways. The figures are never asserted.
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
  }
});
