import { describe, expect, it } from 'vitest';
import {
  checkEventSize,
  checkLimits,
  DEFAULT_SECURITY_LIMITS,
  LimitsConfigError,
  resolveSecurityLimits,
  utf8Length,
} from '../../server/limits/index.ts';

describe('security limits', () => {
  it('documented defaults', () => {
    expect(DEFAULT_SECURITY_LIMITS).toEqual({
      maxEventDepth: 64,
      appendsPerSecond: 1000,
      appendBurst: 2000,
      rateLimitCloseAfterMs: 10_000,
      maxBufferedBytes: 1024 * 1024,
      stallTimeoutMs: 30_000,
      maxPendingConnections: 1000,
      maxPendingPerAddress: 32,
      maxSubscriptionsPerNode: 100_000,
      tokenRefreshGraceMs: 10_000,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5000,
    });
    expect(resolveSecurityLimits()).toEqual(DEFAULT_SECURITY_LIMITS);
  });

  it('overrides apply; undefined keeps the default; nonsense is refused', () => {
    expect(resolveSecurityLimits({ appendsPerSecond: 5, appendBurst: undefined } as never)).toMatchObject({
      appendsPerSecond: 5,
      appendBurst: DEFAULT_SECURITY_LIMITS.appendBurst,
    });
    for (const bad of [{ appendBurst: 0 }, { maxBufferedBytes: -1 }, { stallTimeoutMs: 1.5 }, { maxEventDepth: NaN }]) {
      expect(() => resolveSecurityLimits(bad)).toThrow(LimitsConfigError);
    }
    expect(() => checkLimits({ maxEventBytes: 0 })).toThrow(/maxEventBytes/);
    expect(() => checkLimits({ maxEventBytes: 1, maxFrameBytes: 1 })).not.toThrow();
    expect(() => checkLimits({ maxEventsPerAppend: 100_001 })).toThrow(/at most 100000/);
  });
});

describe('checkEventSize', () => {
  const limits = { maxEventBytes: 1000, maxEventDepth: 8 };

  it('an event within the limits passes; its estimate is its JSON size', () => {
    const event = { type: 'user/message', data: { role: 'user', content: 'héllo 👋', n: [1, 2.5, true, null] } };
    expect(checkEventSize(event, limits)).toBeUndefined();
    const exact = JSON.stringify(event);
    expect(checkEventSize(event, { maxEventBytes: utf8Length(exact), maxEventDepth: 8 })).toBeUndefined();
    expect(checkEventSize(event, { maxEventBytes: utf8Length(exact) - 1, maxEventDepth: 8 })).toEqual({
      kind: 'too-large',
      maxBytes: utf8Length(exact) - 1,
    });
  });

  it('large strings, many keys and long arrays are too large', () => {
    expect(checkEventSize({ data: 'x'.repeat(2000) }, limits)).toMatchObject({ kind: 'too-large' });
    expect(checkEventSize({ data: Array.from({ length: 600 }, () => 0) }, limits)).toMatchObject({ kind: 'too-large' });
    const manyKeys = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, 1]));
    expect(checkEventSize(manyKeys, limits)).toMatchObject({ kind: 'too-large' });
    expect(checkEventSize({ data: '€'.repeat(400) }, limits)).toMatchObject({ kind: 'too-large' });
  });

  it('deep nesting is refused without recursion, even 100,000 levels deep', () => {
    let deep: unknown = 0;
    for (let level = 0; level < 100_000; level++) deep = [deep];
    expect(checkEventSize(deep, { maxEventBytes: 10_000_000, maxEventDepth: 64 })).toEqual({
      kind: 'too-deep',
      maxDepth: 64,
    });
    let ok: unknown = 0;
    for (let level = 0; level < 8; level++) ok = { a: ok };
    expect(checkEventSize(ok, limits)).toBeUndefined();
    expect(checkEventSize({ a: ok }, limits)).toMatchObject({ kind: 'too-deep' });
  });

  it('utf8Length counts UTF-8 bytes', () => {
    expect([utf8Length('a'), utf8Length('é'), utf8Length('€'), utf8Length('👋'), utf8Length('\ud800')]).toEqual([
      1, 2, 3, 4, 3,
    ]);
  });
});
