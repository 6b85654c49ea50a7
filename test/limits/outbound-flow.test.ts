import { describe, expect, it } from 'vitest';
import { DrainWatch, OutboundFlow } from '../../server/limits/index.ts';

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

describe('DrainWatch', () => {
  it('stalled when data waits and none of it drains for the stall time, whatever the queue size', () => {
    const watch = new DrainWatch(100, 0, 5000);
    expect(watch.observe(100, 4999)).toBe('draining');
    expect(watch.observe(100, 5000)).toBe('stalled');
  });

  it('sends in between never hide that nothing drained; any drained byte restarts the clock; empty is idle', () => {
    const watch = new DrainWatch(100, 0, 5000);
    watch.sent(50);
    expect(watch.observe(150, 3000)).toBe('draining'); // grew by what was sent: nothing left
    watch.sent(50);
    expect(watch.observe(190, 4000)).toBe('draining'); // 10 bytes left
    expect(watch.observe(190, 8999)).toBe('draining');
    expect(watch.observe(190, 9000)).toBe('stalled');
    expect(watch.observe(0, 9001)).toBe('idle');
  });
});
