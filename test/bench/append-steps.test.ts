import { describe, expect, it } from 'vitest';
import { formatAppendSteps, measureAppendSteps, measureSdkAppendSteps } from '../../bench/append-steps.ts';

describe('append step costs (bench/append-steps.ts)', () => {
  it('runs every step of a socket append on the bench event and sums them', () => {
    const costs = measureAppendSteps({ iterations: 50 });
    expect(costs.map((cost) => cost.step)).toEqual([
      'decode frame (msgpack)',
      'parse (narrow to AppendRequest)',
      'size and depth check',
      'validate + freeze at the head',
      'encode stored body',
      'encode ack',
      'total',
    ]);
    for (const cost of costs) expect(Number.isFinite(cost.micros) && cost.micros >= 0).toBe(true);
    const total = costs.at(-1)!.micros;
    const parts = costs.slice(0, -1).reduce((sum, cost) => sum + cost.micros, 0);
    expect(total).toBeCloseTo(parts, 9);
    expect(formatAppendSteps(costs).split('\n')).toHaveLength(costs.length);
  });

  it("times the SDK's draft-to-frame path both ways (encode once, and per use as before)", () => {
    const costs = measureSdkAppendSteps({ iterations: 50 });
    expect(costs.map((cost) => cost.step)).toEqual([
      'SDK: draft to frame, encode-once',
      'SDK: draft to frame, encode-per-use (before)',
    ]);
    for (const cost of costs) expect(Number.isFinite(cost.micros) && cost.micros >= 0).toBe(true);
  });
});
