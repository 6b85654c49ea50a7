/** One line of the bench table: a hub figure next to the baseline it is judged against. */
export interface Row {
  readonly scenario: string;
  readonly metric: string;
  readonly unit: string;
  /** The hub's figure; null when it was not measured (hub missing, or the run failed). */
  readonly hub: number | null;
  readonly baselineName: string | null;
  readonly baseline: number | null;
  /** Human-readable target, e.g. "≥ 50,000/s". Empty when the row is informational. */
  readonly target: string;
  /** Whether the target was met; null when there is no target or no figure. */
  readonly met: boolean | null;
}

/** hub / baseline, or null when either is missing or the baseline is 0. */
export function ratio(row: Row): number | null {
  if (row.hub === null || row.baseline === null || row.baseline === 0) return null;
  return row.hub / row.baseline;
}

/** Format a figure with 3 significant digits and thousands separators. */
export function formatNumber(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return '—';
  const magnitude = Math.abs(value);
  if (magnitude >= 1000) return Math.round(value).toLocaleString('en-US');
  if (magnitude >= 100) return value.toFixed(0);
  if (magnitude >= 10) return value.toFixed(1);
  if (magnitude >= 1) return value.toFixed(2);
  if (magnitude === 0) return '0';
  return value.toPrecision(2);
}

const HEADER = ['scenario', 'metric', 'hub', 'baseline', 'baseline value', 'ratio', 'target', 'met?'] as const;

function cells(row: Row): string[] {
  const unit = row.unit === '' ? '' : ` ${row.unit}`;
  const r = ratio(row);
  return [
    row.scenario,
    row.metric,
    row.hub === null ? '—' : `${formatNumber(row.hub)}${unit}`,
    row.baselineName ?? '',
    row.baseline === null ? (row.baselineName === null ? '' : '—') : `${formatNumber(row.baseline)}${unit}`,
    r === null ? '' : r > 0 && r < 0.001 ? '< 0.001×' : `${formatNumber(r)}×`,
    row.target,
    row.met === null ? '' : row.met ? 'yes' : 'NO',
  ];
}

/** The one table `npm run bench` prints: fixed-width text columns. */
export function formatTable(rows: readonly Row[]): string {
  const table = [HEADER.slice(), ...rows.map(cells)];
  const widths = HEADER.map((_, column) => Math.max(...table.map((line) => line[column]!.length)));
  const line = (values: readonly string[]): string =>
    values
      .map((value, column) => value.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(table[0]!), rule, ...table.slice(1).map(line)].join('\n');
}

/** The same table as Markdown (for docs/performance.md). */
export function formatMarkdownTable(rows: readonly Row[]): string {
  const escape = (value: string): string => value.replaceAll('|', '\\|');
  const lines = [
    `| ${HEADER.join(' | ')} |`,
    `|${HEADER.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${cells(row).map(escape).join(' | ')} |`),
  ];
  return lines.join('\n');
}

/** `met` for "at least": null when the figure is missing. */
export function atLeast(value: number | null, threshold: number | null): boolean | null {
  return value === null || threshold === null ? null : value >= threshold;
}

/** `met` for "at most": null when the figure is missing. */
export function atMost(value: number | null, threshold: number | null): boolean | null {
  return value === null || threshold === null ? null : value <= threshold;
}
