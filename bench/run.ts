/**
 * `npm run bench [-- --quick] [-- --only fanout] [-- --profile]`: runs the scenarios against a redis-server it
 * starts itself, prints one table (hub figure, baseline, ratio, target) and writes bench/results/latest.json.
 * Progress goes to stderr, the table to stdout.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { RedisServer } from '../test/helpers/redis-server.ts';
import { machineInfo } from './machine.ts';
import { parseBenchOptions, selects, type BenchOptions, type ScenarioName } from './options.ts';
import { formatTable, type Row } from './report.ts';
import { runAppend } from './scenarios/append.ts';
import { runCatchUp } from './scenarios/catchup.ts';
import { runCluster } from './scenarios/cluster.ts';
import { runFanout } from './scenarios/fanout.ts';
import { runJoin } from './scenarios/join.ts';
import { runSnapshotCost } from './scenarios/snapshot-cost.ts';
import { runInspectorJoin } from './scenarios/inspector-join.ts';
import { runListing } from './scenarios/listing.ts';
import { runErasure } from './scenarios/erasure.ts';
import { runMemory } from './scenarios/memory.ts';
import { runProjection } from './scenarios/projection.ts';
import { runRetention } from './scenarios/retention.ts';
import { runWarmup } from './scenarios/warmup.ts';
import { runFork } from './scenarios/fork.ts';
import { hubTarget } from './hub-target.ts';
import { runArchiveBackends } from './archive-backends.ts';
import { runArchiveTier } from './archive-tier.ts';
import type { BenchContext, HubTarget } from './targets.ts';

const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));

function log(line: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

type ScenarioRunner = (context: BenchContext, hub: HubTarget | undefined) => Promise<{ rows: Row[]; raw: unknown }>;

const scenarios: Record<ScenarioName, ScenarioRunner | undefined> = {
  append: (context, hub) => runAppend(context, hub, log),
  fanout: (context, hub) => runFanout(context, hub, log),
  catchup: (context, hub) => runCatchUp(context, hub, log),
  memory: (context, hub) => runMemory(context, hub, log),
  projection: (context) => runProjection(context.quick),
  warmup: (context, hub) => runWarmup(context, hub, log),
  cluster: (context, hub) => runCluster(context, hub, log),
  join: (context) => runJoin(context, log),
  archive: (context) => runArchiveBackends(context, log),
  'archive-tier': (context) => runArchiveTier(context, log),
  snapshots: (context) => runSnapshotCost(context, log),
  inspector: (context) => runInspectorJoin(context, log),
  listing: (context) => runListing(context, log),
  retention: (context) => runRetention(context, log),
  fork: (context) => runFork(context),
  erasure: (context) => runErasure(context, log),
};

/** The hub target (bench/hub-target.ts), or undefined when the hub cannot be loaded. */
async function loadHubTarget(context: BenchContext): Promise<HubTarget | undefined> {
  try {
    return hubTarget(context);
  } catch (error) {
    log(`hub not available, measuring the baselines only (${error instanceof Error ? error.message : String(error)})`);
    return undefined;
  }
}

async function main(options: BenchOptions): Promise<void> {
  const started = performance.now();
  const machine = machineInfo();
  log(
    `${options.quick ? 'quick' : 'full'} run on ${machine.cpuModel} × ${machine.cores}, Node ${machine.node}, Redis ${machine.redis}`,
  );
  const redis = await RedisServer.start();
  const context: BenchContext = {
    quick: options.quick,
    redisUrl: redis.url,
    ...(options.profile ? { cpuProfileDir: `${resultsDir}profiles` } : {}),
  };
  const hub = await loadHubTarget(context);
  const rows: Row[] = [];
  const raw: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  try {
    for (const [name, runner] of Object.entries(scenarios) as [ScenarioName, ScenarioRunner | undefined][]) {
      if (!selects(options, name)) continue;
      if (runner === undefined) {
        errors[name] = 'not implemented';
        continue;
      }
      const scenarioStart = performance.now();
      log(`scenario ${name}…`);
      try {
        const result = await runner(context, hub);
        rows.push(...result.rows);
        raw[name] = result.raw;
      } catch (error) {
        errors[name] = error instanceof Error ? (error.stack ?? error.message) : String(error);
        log(`scenario ${name} failed: ${errors[name]}`);
      }
      log(`scenario ${name} took ${((performance.now() - scenarioStart) / 1000).toFixed(1)} s`);
    }
  } finally {
    await redis.stop();
  }
  const durationSec = (performance.now() - started) / 1000;
  process.stdout.write(`\n${formatTable(rows)}\n\n`);
  mkdirSync(resultsDir, { recursive: true });
  const file = `${resultsDir}latest.json`;
  const report = {
    date: new Date().toISOString(),
    mode: options.quick ? 'quick' : 'full',
    only: options.only,
    durationSec: Math.round(durationSec),
    machine,
    loadAverageAtEnd: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    hubMeasured: hub !== undefined,
    rows,
    errors,
    raw,
  };
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  log(`done in ${durationSec.toFixed(0)} s; wrote ${file}`);
  if (Object.keys(errors).length > 0) log(`scenarios with errors: ${Object.keys(errors).join(', ')}`);
}

let options: BenchOptions;
try {
  options = parseBenchOptions(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}
await main(options);
