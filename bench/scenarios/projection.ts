import { runProjectionBench, type ProjectionBenchResult } from '../projection.ts';
import { atLeast, atMost, type Row } from '../report.ts';

/**
 * Scenario 5: incremental `MessageProjector` vs from-scratch `deriveMessages` at 1k / 100k / 1M events. The
 * measurement lives in bench/projection.ts (written with the shared core); it runs in-process (no server).
 */
export async function runProjection(quick: boolean): Promise<{ rows: Row[]; raw: ProjectionBenchResult }> {
  const result = await runProjectionBench({ quick });
  return { rows: projectionRows(result), raw: result };
}

/** Table rows of the projection scenario (pure). "hub" here is the incremental projector the SDK and hub use. */
export function projectionRows(result: ProjectionBenchResult): Row[] {
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
