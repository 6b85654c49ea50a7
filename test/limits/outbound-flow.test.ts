import { describe, expect, it } from 'vitest';
import { OutboundFlow } from '../../server/limits/index.ts';

describe('OutboundFlow', () => {
  it('open under the bound, behind above it, stalled when it drains nothing for the stall time', () => {
    const flow = new OutboundFlow({ maxBufferedBytes: 1000, stallTimeoutMs: 5000 });
    expect(flow.observe(0, 0)).toBe('open');
    expect(flow.observe(1000, 10)).toBe('open');
    expect(flow.observe(1001, 20)).toBe('behind');
    expect(flow.observe(1500, 3000)).toBe('behind');
    expect(flow.observe(1500, 5019)).toBe('behind');
    expect(flow.observe(1500, 5020)).toBe('stalled');
  });

  it('any draining restarts the stall clock; dropping under the bound reopens', () => {
    const flow = new OutboundFlow({ maxBufferedBytes: 1000, stallTimeoutMs: 5000 });
    expect(flow.observe(2000, 0)).toBe('behind');
    expect(flow.observe(1900, 4000)).toBe('behind');
    expect(flow.observe(1900, 8999)).toBe('behind');
    expect(flow.observe(1950, 9000)).toBe('stalled');
    expect(flow.observe(500, 9100)).toBe('open');
    expect(flow.observe(5000, 20_000)).toBe('behind');
    expect(flow.observe(5000, 24_999)).toBe('behind');
  });
});
