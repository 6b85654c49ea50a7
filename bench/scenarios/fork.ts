import { runForkBench, type ForkBenchResult } from '../fork-run.ts';
import { atMost, type Row } from '../report.ts';
import type { BenchContext } from '../targets.ts';

/**
 * Forks: a fork of a 1,000-event session and of a 1,000,000-event one (100,000 with --quick), time and Redis memory
 * per fork, next to copying the events (the baseline, in the same run). Runs in-process on the bench Redis.
 */
export async function runFork(context: BenchContext): Promise<{ rows: Row[]; raw: ForkBenchResult }> {
  const result = await runForkBench({ quick: context.quick, redisUrl: context.redisUrl });
  return { rows: forkRows(result), raw: result };
}

/** Table rows of the fork scenario (pure). */
export function forkRows(result: ForkBenchResult): Row[] {
  const rows: Row[] = [];
  const small = result.sizes[0];
  for (const size of result.sizes) {
    const scenario = `fork of a ${size.events.toLocaleString('en-US')}-event session`;
    rows.push({
      scenario,
      metric: 'ms per fork (median)',
      unit: 'ms',
      hub: size.forkMs,
      baselineName: size.copyMs === null ? null : 'copying its events',
      baseline: size.copyMs,
      target: '',
      met: null,
    });
    rows.push({
      scenario,
      metric: 'events/s reading a fork whole (prefix from the parent)',
      unit: '/s',
      hub: size.forkReadPerSecond,
      baselineName: 'reading the parent',
      baseline: size.parentReadPerSecond,
      target: '',
      met: null,
    });
    rows.push({
      scenario,
      metric: "pages/s reading a 20-event page of a fork's prefix",
      unit: '/s',
      hub: size.forkPagesPerSecond,
      baselineName: 'the same page of the parent',
      baseline: size.parentPagesPerSecond,
      target: '',
      met: null,
    });
    rows.push({
      scenario,
      metric: 'Redis bytes per fork',
      unit: 'B',
      hub: size.forkBytes,
      baselineName: "the parent's keys (a copy)",
      baseline: size.parentBytes,
      target: '',
      met: null,
    });
  }
  const large = result.sizes.at(-1);
  if (small !== undefined && large !== undefined && large !== small) {
    const label = `fork, ${large.events.toLocaleString('en-US')} vs ${small.events.toLocaleString('en-US')} events`;
    rows.push({
      scenario: label,
      metric: 'time per fork, large / small',
      unit: '×',
      hub: large.forkMs / small.forkMs,
      baselineName: null,
      baseline: null,
      target: '≤ 2',
      met: atMost(large.forkMs / small.forkMs, 2),
    });
    rows.push({
      scenario: label,
      metric: 'Redis bytes per fork, large / small',
      unit: '×',
      hub: large.forkBytes / small.forkBytes,
      baselineName: null,
      baseline: null,
      target: '≤ 1.5',
      met: atMost(large.forkBytes / small.forkBytes, 1.5),
    });
  }
  return rows;
}
