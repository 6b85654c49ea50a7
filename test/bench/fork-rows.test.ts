import { describe, expect, it } from 'vitest';
import { forkRows } from '../../bench/scenarios/fork.ts';

const size = (events: number, forkMs: number, forkBytes: number) => ({
  events,
  forkMs,
  forkBytes,
  usedMemoryPerFork: forkBytes,
  parentBytes: events * 76,
  copyMs: events <= 100_000 ? events / 10 : null,
  forkReadPerSecond: 200_000,
  parentReadPerSecond: 250_000,
  forkPagesPerSecond: 4000,
  parentPagesPerSecond: 5000,
});

describe('the fork scenario rows', () => {
  it('gives time and bytes per size next to the copy baseline, and judges large against small', () => {
    const rows = forkRows({ name: 'fork', quick: false, sizes: [size(1000, 1, 664), size(1_000_000, 1.5, 664)] });
    expect(rows.map((row) => [row.scenario, row.metric, row.hub, row.baseline])).toEqual([
      ['fork of a 1,000-event session', 'ms per fork (median)', 1, 100],
      ['fork of a 1,000-event session', 'events/s reading a fork whole (prefix from the parent)', 200_000, 250_000],
      ['fork of a 1,000-event session', "pages/s reading a 20-event page of a fork's prefix", 4000, 5000],
      ['fork of a 1,000-event session', 'Redis bytes per fork', 664, 76_000],
      ['fork of a 1,000,000-event session', 'ms per fork (median)', 1.5, null],
      ['fork of a 1,000,000-event session', 'events/s reading a fork whole (prefix from the parent)', 200_000, 250_000],
      ['fork of a 1,000,000-event session', "pages/s reading a 20-event page of a fork's prefix", 4000, 5000],
      ['fork of a 1,000,000-event session', 'Redis bytes per fork', 664, 76_000_000],
      ['fork, 1,000,000 vs 1,000 events', 'time per fork, large / small', 1.5, null],
      ['fork, 1,000,000 vs 1,000 events', 'Redis bytes per fork, large / small', 1, null],
    ]);
    expect(rows.slice(-2).map((row) => row.met)).toEqual([true, true]);
    const grown = forkRows({ name: 'fork', quick: true, sizes: [size(1000, 1, 664), size(100_000, 3, 2000)] });
    expect(grown.slice(-2).map((row) => row.met)).toEqual([false, false]);
  });
});
