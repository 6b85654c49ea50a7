/**
 * Part of `npm run bench -- --only archive-tier` (bench/archive-tier.ts): a hub node's append latency at a steady
 * 200 appends/s (HTTP, one event each, one session) while other sessions keep arriving in Redis (1,000-event
 * sessions committed beside it, 5 a second, from a thread of their own: bench/archive-writer.ts), with the node's archiver moving them out (a tick every 250 ms: serve's shortest; idle after
 * 1 ms), next to the same run without the archiver, and to a floor: the same run with a dummy CPU load of the archiver's
 * size instead (bench/cpu-burner.ts). All runs write the same load; only the archiving differs. Rounds of the three
 * back to back; per-round ratios, medians over the rounds (the shared VM's load moves the runs of a round alike).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { Redis } from 'ioredis';
import { createHub, RedisStore } from '../server/index.ts';
import { Archiver } from '../server/archive/archiver.ts';
import { FileArchive } from '../server/archive/file/file-archive.ts';
import { startBackgroundWriter, type BackgroundWriter } from './archive-writer.ts';
import { startCpuBurner, type CpuBurner } from './cpu-burner.ts';
import { redisCpuMs } from './redis-stats.ts';
import { median, medianItem } from './scenarios/catchup-rounds.ts';
import { LatencyRecorder, type LatencySummary } from './stats.ts';
import type { BenchContext } from './targets.ts';

const RATE = 200;

/** Appends at `RATE`/s for `seconds` (paced by the clock, not by the answers); their latencies. */
async function appendAt(url: string, sessionId: string, seconds: number): Promise<LatencySummary> {
  const recorder = new LatencyRecorder();
  const path = `${url}/v1/sessions/${encodeURIComponent(sessionId)}/events`;
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let index = 0; index < RATE * seconds; index++) {
    const due = start + (index * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const sent = performance.now();
    pending.push(
      fetch(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ events: [{ type: 'test/tick', data: { index } }] }),
      }).then(async (response) => {
        await response.arrayBuffer();
        if (response.status !== 201) throw new Error(`archive-append: append answered ${response.status}`);
        recorder.recordMs(performance.now() - sent);
      }),
    );
  }
  await Promise.all(pending);
  return recorder.summary();
}

/** What one run measured besides the latencies: where the time went. */
export interface RunLoad {
  /** The bench process's event-loop delay (hub, archiver, writer and load generator share it), ms. */
  readonly loopDelayP99Ms: number;
  readonly loopDelayMaxMs: number;
  /** CPU of the bench process (all its threads) and of redis-server over the measured appends, ms per s. */
  readonly processCpuMsPerSec: number;
  readonly redisCpuMsPerSec: number;
  /** Time the bench process's main thread was busy (event-loop utilization), ms per s. */
  readonly mainBusyMsPerSec: number;
}

/** A run without the archiver, with it, or with a dummy CPU load of the archiver's size instead (the floor). */
type RunMode =
  | { readonly kind: 'without' | 'archiver' }
  | { readonly kind: 'floor'; readonly mainMsPerSec: number; readonly otherMsPerSec: number };

interface RunResult extends RunLoad {
  readonly latency: LatencySummary;
  readonly runs: number;
}

/** One run: the hub, the background sessions, and the archiver or its dummy load (`mode`); the append latencies. */
async function oneRun(context: BenchContext, mode: RunMode, seconds: number): Promise<RunResult> {
  const keyPrefix = `bench-aa-${randomUUID().slice(0, 8)}:`;
  const store = await RedisStore.open({ url: context.redisUrl, keyPrefix });
  const admin = new Redis(context.redisUrl);
  const dir = await mkdtemp(join(tmpdir(), 'sh-bench-aa-'));
  const archive = new FileArchive({ dir });
  await archive.open();
  const logger = pino({ level: 'silent' });
  const hub = createHub({ store, archive, port: 0, logger, logLifecycle: false });
  const archiver = new Archiver({
    store,
    archive,
    policy: { archiveAfterMs: 1 },
    logger,
    counts: hub.metrics.archive,
    nodeName: 'bench',
    tickMs: 250,
  });
  let burner: CpuBurner | undefined;
  let background: BackgroundWriter | undefined;
  try {
    const { url } = await hub.listen();
    background = await startBackgroundWriter(context.redisUrl, keyPrefix);
    if (mode.kind === 'archiver') archiver.start();
    if (mode.kind === 'floor') burner = startCpuBurner(mode.mainMsPerSec, mode.otherMsPerSec);
    await appendAt(url, 'warm-up', 1);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    const cpuBefore = process.cpuUsage();
    const redisBefore = await redisCpuMs(admin);
    const started = performance.now();
    const utilization = performance.eventLoopUtilization();
    loop.enable();
    const latency = await appendAt(url, 'appended', seconds);
    loop.disable();
    const elapsedSec = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const busy = performance.eventLoopUtilization(utilization);
    return {
      latency,
      runs: hub.metrics.archive.runs,
      loopDelayP99Ms: loop.percentile(99) / 1e6,
      loopDelayMaxMs: loop.max / 1e6,
      processCpuMsPerSec: (cpu.user + cpu.system) / 1000 / elapsedSec,
      redisCpuMsPerSec: ((await redisCpuMs(admin)) - redisBefore) / elapsedSec,
      mainBusyMsPerSec: busy.active / elapsedSec,
    };
  } finally {
    await burner?.stop();
    admin.disconnect();
    await background?.stop();
    await archiver.stop();
    await hub.close();
    await store.close();
    await archive.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export interface ArchiveAppendResults {
  readonly seconds: number;
  /** Rounds of (without, with, floor) run back to back; the figures are the medians of the rounds. */
  readonly rounds: number;
  readonly without: LatencySummary;
  readonly withArchiver: LatencySummary;
  /**
   * The floor: the same load with a dummy CPU load of the archiver's size instead of the archiver (the main-thread
   * time and the other threads' CPU it added in the same round, bench/cpu-burner.ts, as cooperative as can be).
   */
  readonly floor: LatencySummary;
  /** The run without the archiver of the floor's median round. */
  readonly floorBaseline: LatencySummary;
  /**
   * Medians over the rounds of each round's p99 ratio to the run without the archiver; the latencies above are those
   * of the median round.
   */
  readonly p99PairedRatio: number;
  readonly floorPairedRatio: number;
  readonly archiveRuns: number;
  readonly load: { readonly without: RunLoad; readonly withArchiver: RunLoad; readonly floor: RunLoad };
}

/** The round whose ratio (`of` to the run without the archiver) is the median of the rounds'. */
function medianRound(of: readonly RunResult[], without: readonly RunResult[]): { run: RunResult; without: RunResult } {
  const rounds = of.map((run, index) => ({ run, without: without[index]! }));
  return medianItem(rounds, (round) => round.run.latency.p99Ms / round.without.latency.p99Ms)!;
}

const loadOf = (run: RunResult): RunLoad => ({
  loopDelayP99Ms: run.loopDelayP99Ms,
  loopDelayMaxMs: run.loopDelayMaxMs,
  processCpuMsPerSec: run.processCpuMsPerSec,
  redisCpuMsPerSec: run.redisCpuMsPerSec,
  mainBusyMsPerSec: run.mainBusyMsPerSec,
});

/** Append latency at 200/s without the archiver, with it, then with its dummy load, in rounds back to back. */
export async function runArchiveAppend(context: BenchContext): Promise<ArchiveAppendResults> {
  const seconds = context.quick ? 3 : 10;
  const rounds = context.quick ? 1 : 3;
  const runs = { without: [] as RunResult[], withArchiver: [] as RunResult[], floor: [] as RunResult[] };
  for (let round = 0; round < rounds; round++) {
    const without = await oneRun(context, { kind: 'without' }, seconds);
    const withArchiver = await oneRun(context, { kind: 'archiver' }, seconds);
    const mainMsPerSec = withArchiver.mainBusyMsPerSec - without.mainBusyMsPerSec;
    const cpuMsPerSec = withArchiver.processCpuMsPerSec - without.processCpuMsPerSec;
    const floor = await oneRun(
      context,
      { kind: 'floor', mainMsPerSec, otherMsPerSec: Math.max(0, cpuMsPerSec - mainMsPerSec) },
      seconds,
    );
    runs.without.push(without);
    runs.withArchiver.push(withArchiver);
    runs.floor.push(floor);
  }
  const withRound = medianRound(runs.withArchiver, runs.without);
  const floorRound = medianRound(runs.floor, runs.without);
  return {
    seconds,
    rounds,
    without: withRound.without.latency,
    withArchiver: withRound.run.latency,
    floor: floorRound.run.latency,
    floorBaseline: floorRound.without.latency,
    p99PairedRatio: withRound.run.latency.p99Ms / withRound.without.latency.p99Ms,
    floorPairedRatio: floorRound.run.latency.p99Ms / floorRound.without.latency.p99Ms,
    archiveRuns: median(runs.withArchiver.map((run) => run.runs)),
    load: {
      without: loadOf(withRound.without),
      withArchiver: loadOf(withRound.run),
      floor: loadOf(floorRound.run),
    },
  };
}
