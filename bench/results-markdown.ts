/**
 * `node --import tsx bench/results-markdown.ts [bench/results/latest.json]`: the table of a run as Markdown, with
 * the machine it ran on (for docs/performance.md).
 */
import { readFileSync } from 'node:fs';
import type { MachineInfo } from './machine.ts';
import { formatMarkdownTable, type Row } from './report.ts';

interface SavedRun {
  readonly date: string;
  readonly mode: string;
  readonly durationSec: number;
  readonly machine: MachineInfo;
  readonly loadAverageAtEnd?: number;
  readonly rows: readonly Row[];
  readonly errors: Readonly<Record<string, string>>;
}

const file = process.argv[2] ?? new URL('./results/latest.json', import.meta.url).pathname;
const run = JSON.parse(readFileSync(file, 'utf8')) as SavedRun;
const { machine } = run;
const errors = Object.keys(run.errors);
process.stdout.write(
  [
    `${run.mode} run of ${run.date} (${run.durationSec} s): ${machine.cpuModel} × ${machine.cores} cores, ` +
      `${machine.memoryGiB} GiB, ${machine.platform}, Node ${machine.node}, Redis ${machine.redis}; ` +
      `1-minute load average ${machine.loadAverageAtStart} at start, ${run.loadAverageAtEnd ?? '?'} at the end.` +
      (errors.length === 0 ? '' : ` Scenarios with errors: ${errors.join(', ')}.`),
    '',
    formatMarkdownTable(run.rows),
    '',
  ].join('\n'),
);
