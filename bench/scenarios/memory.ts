import { ensureDistBuild } from '../dist-build.ts';
import { hubTarget } from '../hub-target.ts';
import { measureIdleMemory, type IdleMemoryResult } from '../memory-run.ts';
import { atMost, type Row } from '../report.ts';
import { socketIoTarget, type BenchContext, type HubTarget, type SystemTarget } from '../targets.ts';

/** Idle connections per system: 2,000 (quick: 1,000). */
export function idleConnections(quick: boolean): number {
  return quick ? 1000 : 2000;
}

export interface MemoryResults {
  readonly socketio?: IdleMemoryResult;
  /** The compiled hub (`dist/`, what the package runs once installed). */
  readonly hub?: IdleMemoryResult;
  /** The hub from its TypeScript sources through tsx (as every other scenario runs it). */
  readonly hubSource?: IdleMemoryResult;
}

/**
 * The target of issue 19: at most 10 KiB RSS per idle subscribed connection and 0.55× Socket.IO's, judged on the
 * marginal cost (the next N connections): the first N also pay for what the process grows once (V8's young
 * generation reaching its size, up to 16 MiB here; malloc arenas), which moved the per-connection figure by 3–9 KiB
 * between identical runs.
 */
export const MEMORY_TARGET_KIB = 10;
export const MEMORY_TARGET_RATIO = 0.55;

/**
 * Scenario 4: RSS per idle subscribed connection after GC, 2,000 connections (quick: 1,000): the compiled hub
 * (compiled first when `dist/` is stale), the hub from its sources, and Socket.IO.
 */
export async function runMemory(
  context: BenchContext,
  hub: HubTarget | undefined,
  log: (line: string) => void,
): Promise<{ rows: Row[]; raw: MemoryResults }> {
  const results: { socketio?: IdleMemoryResult; hub?: IdleMemoryResult; hubSource?: IdleMemoryResult } = {};
  const compiled = (): SystemTarget => {
    ensureDistBuild(log);
    return hubTarget(context, 'dist');
  };
  for (const [key, target] of [
    ['hub', hub === undefined ? undefined : compiled],
    ['hubSource', hub === undefined ? undefined : () => hub],
    ['socketio', () => socketIoTarget(context)],
  ] as const) {
    if (target === undefined) continue;
    try {
      const measured = await measureIdleMemory(target(), idleConnections(context.quick), context.quick ? 400 : 1000);
      results[key] = measured;
      const kib = (bytes: number): string => (bytes / 1024).toFixed(1);
      log(
        `memory ${key}: ${kib(measured.rssPerConnectionBytes)} KiB RSS per idle connection for the first ` +
          `${measured.connections}, ${kib(measured.marginalRssPerConnectionBytes)} KiB for the next`,
      );
    } catch (error) {
      log(`memory ${key} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { rows: memoryRows(results), raw: results };
}

/** Table rows of the memory scenario (pure). */
export function memoryRows(results: MemoryResults): Row[] {
  const kib = (bytes: number | undefined): number | null => (bytes === undefined ? null : bytes / 1024);
  const connections = results.hub?.connections ?? results.hubSource?.connections ?? results.socketio?.connections ?? 0;
  const scenario = `memory, ${connections.toLocaleString('en-US')} idle subscribers`;
  const socketIoRss = kib(results.socketio?.rssPerConnectionBytes);
  const marginal = kib(results.hub?.marginalRssPerConnectionBytes);
  const socketIoMarginal = kib(results.socketio?.marginalRssPerConnectionBytes);
  const withinRatio =
    marginal === null || socketIoMarginal === null ? null : marginal <= MEMORY_TARGET_RATIO * socketIoMarginal;
  const withinBytes = atMost(marginal, MEMORY_TARGET_KIB);
  return [
    {
      scenario,
      metric: `RSS per idle connection, the next ${connections.toLocaleString('en-US')} (after GC), compiled hub`,
      unit: 'KiB',
      hub: marginal,
      baselineName: 'Socket.IO',
      baseline: socketIoMarginal,
      target: `≤ ${MEMORY_TARGET_KIB} KiB, ≤ ${MEMORY_TARGET_RATIO}× Socket.IO`,
      met: withinBytes === null || withinRatio === null ? null : withinBytes && withinRatio,
    },
    {
      scenario,
      metric: `RSS per idle connection, the first ${connections.toLocaleString('en-US')} (after GC), compiled hub`,
      unit: 'KiB',
      hub: kib(results.hub?.rssPerConnectionBytes),
      baselineName: 'Socket.IO',
      baseline: socketIoRss,
      target: '',
      met: null,
    },
    {
      scenario,
      metric: `JS heap per idle connection, the first ${connections.toLocaleString('en-US')} (after GC), compiled hub`,
      unit: 'KiB',
      hub: kib(results.hub?.heapPerConnectionBytes),
      baselineName: 'Socket.IO',
      baseline: kib(results.socketio?.heapPerConnectionBytes),
      target: '',
      met: null,
    },
    {
      scenario,
      metric: `RSS per idle connection, the first ${connections.toLocaleString('en-US')} (after GC), hub from sources (tsx)`,
      unit: 'KiB',
      hub: kib(results.hubSource?.rssPerConnectionBytes),
      baselineName: 'Socket.IO',
      baseline: socketIoRss,
      target: '',
      met: null,
    },
  ];
}
