/** Command-line options of `npm run bench`. */
export interface BenchOptions {
  /** Short runs (whole suite < 3 min on 2 cores) instead of the full run (< 15 min). */
  readonly quick: boolean;
  /** Run only these scenarios (`--only append,fanout`); empty = all. */
  readonly only: readonly ScenarioName[];
  /** Write a V8 CPU profile of every hub child process to bench/results/profiles. */
  readonly profile: boolean;
}

export const SCENARIO_NAMES = [
  'append',
  'fanout',
  'catchup',
  'memory',
  'projection',
  'warmup',
  'cluster',
  'join',
  'archive',
  'archive-tier',
  'snapshots',
  'inspector',
  'listing',
  'retention',
  'fork',
  'erasure',
] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

function isScenarioName(name: string): name is ScenarioName {
  return (SCENARIO_NAMES as readonly string[]).includes(name);
}

/** Parse `process.argv.slice(2)`; throws with a usage message on anything unknown. */
export function parseBenchOptions(argv: readonly string[]): BenchOptions {
  let quick = false;
  let profile = false;
  const only: ScenarioName[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === '--quick') quick = true;
    else if (arg === '--profile') profile = true;
    else if (arg === '--only' || arg.startsWith('--only=')) {
      const value = arg === '--only' ? argv[++index] : arg.slice('--only='.length);
      if (value === undefined || value === '') throw new Error(`--only needs a scenario name.\n${usage()}`);
      for (const name of value.split(',')) {
        if (!isScenarioName(name)) throw new Error(`unknown scenario "${name}".\n${usage()}`);
        only.push(name);
      }
    } else throw new Error(`unknown option "${arg}".\n${usage()}`);
  }
  return { quick, only, profile };
}

/** Whether a scenario is selected by `--only` (all are when it is absent). */
export function selects(options: BenchOptions, name: ScenarioName): boolean {
  return options.only.length === 0 || options.only.includes(name);
}

export function usage(): string {
  return `usage: npm run bench -- [--quick] [--only ${SCENARIO_NAMES.join('|')}[,...]] [--profile]`;
}
