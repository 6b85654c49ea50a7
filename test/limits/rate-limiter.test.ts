import { describe, expect, it } from 'vitest';
import { RateLimiter, TokenBucket } from '../../server/limits/index.ts';

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

describe('TokenBucket', () => {
  it('starts full, allows the burst, then refills at the rate, never above the burst', () => {
    const time = clock();
    const bucket = new TokenBucket({ ratePerSecond: 10, burst: 3, now: time.now });
    expect([bucket.tryTake(), bucket.tryTake(), bucket.tryTake(), bucket.tryTake()]).toEqual([true, true, true, false]);
    expect(bucket.msUntil(1)).toBe(100);
    time.advance(99);
    expect(bucket.tryTake()).toBe(false);
    time.advance(1);
    expect(bucket.tryTake()).toBe(true);
    time.advance(60_000);
    expect(bucket.available).toBe(3);
    expect(bucket.tryTake(4)).toBe(false);
    expect(bucket.msUntil(4)).toBe(Number.POSITIVE_INFINITY);
    expect(bucket.tryTake(3)).toBe(true);
  });

  it('a clock going backwards never adds tokens', () => {
    const time = clock();
    const bucket = new TokenBucket({ ratePerSecond: 1, burst: 1, now: time.now });
    expect(bucket.tryTake()).toBe(true);
    time.advance(-5_000);
    expect(bucket.tryTake()).toBe(false);
    time.advance(5_500);
    expect(bucket.tryTake()).toBe(false);
    time.advance(500);
    expect(bucket.tryTake()).toBe(true);
  });

  it('refuses nonsense settings', () => {
    expect(() => new TokenBucket({ ratePerSecond: 0, burst: 1 })).toThrow(RangeError);
    expect(() => new TokenBucket({ ratePerSecond: 1, burst: 0 })).toThrow(RangeError);
  });
});

describe('RateLimiter', () => {
  it('refuses above the rate with retryAfterMs', () => {
    const time = clock();
    const limiter = new RateLimiter({ ratePerSecond: 2, burst: 2, closeAfterMs: 10_000, now: time.now });
    expect(limiter.check()).toEqual({ allowed: true });
    expect(limiter.check()).toEqual({ allowed: true });
    expect(limiter.check()).toEqual({ allowed: false, retryAfterMs: 500, close: false });
    time.advance(400);
    expect(limiter.check()).toEqual({ allowed: false, retryAfterMs: 100, close: false });
    time.advance(100);
    expect(limiter.check()).toEqual({ allowed: true });
  });

  it('closes a client that keeps flooding, even though it gets a request through now and then', () => {
    const time = clock();
    const limiter = new RateLimiter({ ratePerSecond: 5, burst: 5, closeAfterMs: 1_000, now: time.now });
    const decisions = [];
    for (let step = 0; step < 300; step++) {
      decisions.push(limiter.check());
      time.advance(10); // 100 requests per second against a rate of 5
    }
    const firstClose = decisions.findIndex((decision) => !decision.allowed && decision.close);
    expect(decisions.some((decision) => decision.allowed)).toBe(true);
    expect(firstClose).toBeGreaterThan(100); // not before closeAfterMs of refusals
    expect(firstClose).toBeLessThan(110);
  });

  it('a client that backs off after a refusal starts afresh', () => {
    const time = clock();
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 1, closeAfterMs: 1_000, now: time.now });
    for (let round = 0; round < 5; round++) {
      expect(limiter.check().allowed).toBe(true);
      expect(limiter.check()).toMatchObject({ allowed: false, close: false });
      time.advance(1_001); // obeys: waits more than a second before the next request
    }
  });
});
