import type { Row } from '../report.ts';

/** What bench/projection.ts (written with the shared core) exports. */
interface ProjectionModule {
  runProjectionBench(options: { quick: boolean }): unknown;
}

function isProjectionModule(value: unknown): value is ProjectionModule {
  return typeof (value as { runProjectionBench?: unknown }).runProjectionBench === 'function';
}

function isRow(value: unknown): value is Row {
  const row = value as Partial<Row>;
  return typeof row.scenario === 'string' && typeof row.metric === 'string' && typeof row.unit === 'string';
}

/**
 * Scenario 5: incremental `MessageProjector` vs from-scratch `deriveMessages` at 1k / 100k / 1M events. The
 * measurement lives in bench/projection.ts (owned by the shared core); this runs it in-process (it needs no
 * server) and takes its table rows (`result.rows`, shaped like `Row`) as they are.
 */
export async function runProjection(quick: boolean): Promise<{ rows: Row[]; raw: unknown }> {
  const specifier = '../projection.ts';
  const loaded: unknown = await import(specifier);
  if (!isProjectionModule(loaded)) throw new Error('bench/projection.ts does not export runProjectionBench');
  const result = await loaded.runProjectionBench({ quick });
  const rows = (result as { rows?: unknown }).rows;
  return { rows: Array.isArray(rows) ? rows.filter(isRow) : [], raw: result };
}
