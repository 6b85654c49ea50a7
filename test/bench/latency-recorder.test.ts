import { describe, expect, it } from 'vitest';
import { LatencyRecorder, ratePerSec } from '../../bench/stats.ts';

describe('LatencyRecorder (HDR histogram)', () => {
  it('reports p50 / p99 / p99.9 / max in milliseconds at microsecond resolution', () => {
    const recorder = new LatencyRecorder();
    for (let value = 1; value <= 10_000; value++) recorder.recordMs(value / 1000);
    const summary = recorder.summary();
    expect(summary.count).toBe(10_000);
    expect(summary.p50Ms).toBeCloseTo(5, 1);
    expect(summary.p99Ms).toBeCloseTo(9.9, 1);
    expect(summary.p999Ms).toBeCloseTo(9.99, 1);
    expect(summary.maxMs).toBeCloseTo(10, 1);
  });

  it('clamps negative latencies to 0 and resets', () => {
    const recorder = new LatencyRecorder();
    recorder.recordMs(-3);
    expect(recorder.summary().maxMs).toBe(0);
    recorder.reset();
    expect(recorder.count).toBe(0);
  });

  it('turns counts into rates', () => {
    expect(ratePerSec(500, 250)).toBe(2000);
    expect(ratePerSec(5, 0)).toBe(0);
  });
});
