import { atLeast, atMost, type Row } from '../report.ts';

/** The result of `runProjectionBench` (bench/projection.ts, owned by the shared core), as far as the table needs it. */
interface ProjectionSize {
  readonly events: number;
  readonly eventsPerSecond: number;
  readonly pruneReplacementNs: number;
  readonly systemPromptReplacementNs: number;
  readonly fromScratchMs: number;
}

export interface ProjectionResult {
  readonly sizes: readonly ProjectionSize[];
  readonly perEventRatio: number;
  readonly replacementRatio: number;
}

interface ProjectionModule {
  runProjectionBench(options: { quick: boolean }): Promise<ProjectionResult>;
}

function isProjectionModule(value: unknown): value is ProjectionModule {
  return typeof (value as { runProjectionBench?: unknown }).runProjectionBench === 'function';
}

/**
 * Scenario 5: incremental `MessageProjector` vs from-scratch `deriveMessages` at 1k / 100k / 1M events. The
 * measurement lives in bench/projection.ts (written with the shared core); it runs in-process (no server).
 */
export async function runProjection(quick: boolean): Promise<{ rows: Row[]; raw: ProjectionResult }> {
  const specifier = '../projection.ts';
  const loaded: unknown = await import(specifier);
  if (!isProjectionModule(loaded)) throw new Error('bench/projection.ts does not export runProjectionBench');
  const result = await loaded.runProjectionBench({ quick });
  return { rows: projectionRows(result), raw: result };
}

/** Table rows of the projection scenario (pure). "hub" here is the incremental projector the SDK and hub use. */
export function projectionRows(result: ProjectionResult): Row[] {
  const rows: Row[] = [];
  for (const size of result.sizes) {
    const scenario = `projection ${size.events.toLocaleString('en-US')} events`;
    const scratchMicros = size.fromScratchMs * 1000;
    rows.push({
      scenario,
      metric: 'events/s (MessageProjector, incremental)',
      unit: '/s',
      hub: size.eventsPerSecond,
      baselineName: 'deriveMessages from scratch',
      baseline: size.fromScratchMs > 0 ? (size.events * 1000) / size.fromScratchMs : null,
      target: '≥ 1,000,000/s',
      met: atLeast(size.eventsPerSecond, 1_000_000),
    });
    for (const [label, ns] of [
      ['tool-result prune', size.pruneReplacementNs],
      ['system prompt change', size.systemPromptReplacementNs],
    ] as const) {
      rows.push({
        scenario,
        metric: `one replacement (${label}) vs re-deriving`,
        unit: 'µs',
        hub: ns / 1000,
        baselineName: 'deriveMessages from scratch',
        baseline: scratchMicros,
        target: '',
        met: null,
      });
    }
  }
  rows.push({
    scenario: 'projection',
    metric: 'per-event cost, largest / smallest log',
    unit: '×',
    hub: result.perEventRatio,
    baselineName: null,
    baseline: null,
    target: '≤ 1.5',
    met: atMost(result.perEventRatio, 1.5),
  });
  rows.push({
    scenario: 'projection',
    metric: 'replacement cost, largest / smallest log',
    unit: '×',
    hub: result.replacementRatio,
    baselineName: null,
    baseline: null,
    target: 'flat (≈ 1)',
    met: null,
  });
  return rows;
}
