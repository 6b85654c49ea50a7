import * as hdr from 'hdr-histogram-js';

/** Percentiles of one latency distribution, in milliseconds. */
export interface LatencySummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
}

/**
 * Latencies recorded in an HDR histogram at microsecond resolution (3 significant digits), so the tail
 * (p99.9) is exact to 0.1 % however many samples there are.
 */
export class LatencyRecorder {
  readonly #histogram = hdr.build({ lowestDiscernibleValue: 1, numberOfSignificantValueDigits: 3 });

  /** Record one latency in milliseconds (negative values, from clock jitter, count as 0). */
  recordMs(latencyMs: number): void {
    this.#histogram.recordValue(Math.max(0, Math.round(latencyMs * 1000)));
  }

  get count(): number {
    return this.#histogram.totalCount;
  }

  summary(): LatencySummary {
    const histogram = this.#histogram;
    const ms = (micros: number): number => micros / 1000;
    return {
      count: histogram.totalCount,
      p50Ms: ms(histogram.getValueAtPercentile(50)),
      p99Ms: ms(histogram.getValueAtPercentile(99)),
      p999Ms: ms(histogram.getValueAtPercentile(99.9)),
      maxMs: ms(histogram.maxValue),
    };
  }

  reset(): void {
    this.#histogram.reset();
  }
}

/** Events per second over a window. */
export function ratePerSec(count: number, windowMs: number): number {
  return windowMs <= 0 ? 0 : (count * 1000) / windowMs;
}
