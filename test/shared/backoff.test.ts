import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../shared/backoff.ts';

describe('backoffDelay (full jitter)', () => {
  const options = { initialDelayMs: 100, maxDelayMs: 1000, factor: 2 };

  it('draws uniformly below a bound that grows by the factor', () => {
    expect(backoffDelay(0, options, () => 0)).toBe(0);
    expect(backoffDelay(0, options, () => 0.999)).toBe(99);
    expect(backoffDelay(1, options, () => 0.5)).toBe(100);
    expect(backoffDelay(3, options, () => 0.5)).toBe(400);
  });

  it('caps the bound at maxDelayMs, even for huge attempt counts', () => {
    expect(backoffDelay(10, options, () => 0.999)).toBe(999);
    expect(backoffDelay(5000, options, () => 0.5)).toBe(500);
  });

  it('stays within [0, bound) with the real random source', () => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const delay = backoffDelay(attempt, options);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(Math.min(1000, 100 * 2 ** attempt));
    }
  });
});
