import { measureIdleMemory, type IdleMemoryResult } from '../memory-run.ts';
import { atMost, type Row } from '../report.ts';
import { socketIoTarget, type BenchContext, type HubTarget } from '../targets.ts';

/** Idle connections per system: 2,000 (quick: 1,000). */
export function idleConnections(quick: boolean): number {
  return quick ? 1000 : 2000;
}

export interface MemoryResults {
  readonly socketio?: IdleMemoryResult;
  readonly hub?: IdleMemoryResult;
}

/** Scenario 4: RSS per idle subscribed connection after GC, 2,000 connections (quick: 1,000), hub vs Socket.IO. */
export async function runMemory(
  context: BenchContext,
  hub: HubTarget | undefined,
  log: (line: string) => void,
): Promise<{ rows: Row[]; raw: MemoryResults }> {
  const results: { socketio?: IdleMemoryResult; hub?: IdleMemoryResult } = {};
  for (const [key, target] of [
    ['hub', hub],
    ['socketio', socketIoTarget(context)],
  ] as const) {
    if (target === undefined) continue;
    try {
      const measured = await measureIdleMemory(target, idleConnections(context.quick), context.quick ? 400 : 1000);
      results[key] = measured;
      log(`memory ${key}: ${(measured.rssPerConnectionBytes / 1024).toFixed(1)} KiB RSS per idle connection`);
    } catch (error) {
      log(`memory ${key} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { rows: memoryRows(results), raw: results };
}

/** Table rows of the memory scenario (pure). */
export function memoryRows(results: MemoryResults): Row[] {
  const kib = (bytes: number | undefined): number | null => (bytes === undefined ? null : bytes / 1024);
  const connections = results.hub?.connections ?? results.socketio?.connections ?? 0;
  const scenario = `memory, ${connections.toLocaleString('en-US')} idle subscribers`;
  const rss = kib(results.hub?.rssPerConnectionBytes);
  return [
    {
      scenario,
      metric: 'RSS per idle connection (after GC)',
      unit: 'KiB',
      hub: rss,
      baselineName: 'Socket.IO',
      baseline: kib(results.socketio?.rssPerConnectionBytes),
      target: '≤ 20 KB',
      met: atMost(rss === null ? null : rss * 1.024, 20),
    },
    {
      scenario,
      metric: 'JS heap per idle connection (after GC)',
      unit: 'KiB',
      hub: kib(results.hub?.heapPerConnectionBytes),
      baselineName: 'Socket.IO',
      baseline: kib(results.socketio?.heapPerConnectionBytes),
      target: '',
      met: null,
    },
  ];
}
