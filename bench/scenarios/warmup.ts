import { performance } from 'node:perf_hooks';
import type { ServerProcess } from '../child/spawn.ts';
import { cpuMs, type ChildSample } from '../child/messages.ts';
import type { Closable, FanoutWriter } from '../clients/types.ts';
import { appendAtRate } from '../load.ts';
import { atMost, type Row } from '../report.ts';
import { measureWakeupFloor, type WakeupFloor } from '../wakeup-floor.ts';
import { stopAll, wsRelayTarget, xaddRelayTarget, type BenchContext, type SystemTarget } from '../targets.ts';

/** The rate agents stream at: one event per append, each travelling alone. */
const RATE_PER_SEC = 200;

/**
 * Window boundaries in ms after the first append; the last window is the node's warmed cost. At 200 appends/s a
 * node is not warm at 5–10 s: hub and relay alike still cost 1.3–2× what they cost at 20–30 s (2026-12-02 runs in
 * docs/performance.md), so full runs measure until 30 s.
 */
const WINDOWS_QUICK = [0, 500, 1000, 1500, 2000, 3000, 5000] as const;
const WINDOWS_FULL = [0, 500, 1000, 1500, 2000, 3000, 5000, 10_000, 20_000, 30_000] as const;

/** Server CPU per append in one window after a fresh server's first append. */
export interface WarmupWindow {
  readonly fromMs: number;
  readonly toMs: number;
  readonly appends: number;
  readonly cpuMicrosPerAppend: number;
}

export interface WarmupMeasurement {
  readonly ratePerSec: number;
  readonly windows: readonly WarmupWindow[];
  readonly errors: number;
}

export interface WarmupResults {
  /**
   * By system: `hub`, `xadd` (ws relay + XADD), `ws` (raw ws relay without Redis, one run: what any Node WebSocket
   * server costs per message at this rate on this machine); each window the median of the runs.
   */
  readonly systems: Record<string, WarmupMeasurement>;
  /** Every run, by system (full runs measure each system several times, on fresh processes). */
  readonly runs?: Record<string, readonly WarmupMeasurement[]>;
  /** A bare Node TCP echo process and redis-server `ECHO` at the same rate: the cost of a wake-up here. */
  readonly wakeupFloor?: WakeupFloor;
}

/**
 * One fresh server process (started for this run, never used before), one subscriber, one writer appending one
 * event at a time at RATE_PER_SEC: the server's CPU per append window by window from its first append.
 */
export async function runWarmupCase(
  target: SystemTarget,
  windows: readonly number[],
  ratePerSec = RATE_PER_SEC,
): Promise<WarmupMeasurement> {
  const [server] = await target.start(1);
  if (server === undefined) throw new Error('no server');
  const closables: Closable[] = [];
  try {
    const port = server.ports[0]!;
    const sessionId = `bench-warmup-${Date.now()}`;
    closables.push(await target.system.subscribe(port, sessionId, () => undefined));
    const writer: FanoutWriter = await target.system.writer(port, sessionId);
    closables.push(writer);
    let acked = 0;
    await server.mark();
    const started = performance.now();
    const samples = sampleAt(server, windows.slice(1), started, () => acked);
    const errors = await appendAtRate(writer, ratePerSec, windows.at(-1)!, () => acked++);
    return { ratePerSec, windows: toWindows(windows, await samples), errors };
  } finally {
    for (const closable of closables) closable.close();
    await stopAll([server]);
  }
}

interface CumulativeSample {
  readonly cpuMs: number;
  readonly acked: number;
}

/** Sample the server's CPU (cumulative since mark) and the acks so far at each boundary. */
async function sampleAt(
  server: ServerProcess,
  boundaries: readonly number[],
  started: number,
  acked: () => number,
): Promise<CumulativeSample[]> {
  const samples: CumulativeSample[] = [];
  for (const boundary of boundaries) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + boundary - performance.now())));
    const ackedNow = acked();
    const sample: ChildSample | undefined = await server.sample();
    samples.push({ cpuMs: sample === undefined ? NaN : cpuMs(sample), acked: ackedNow });
  }
  return samples;
}

function toWindows(boundaries: readonly number[], samples: readonly CumulativeSample[]): WarmupWindow[] {
  let previous: CumulativeSample = { cpuMs: 0, acked: 0 };
  return samples.map((sample, index) => {
    const appends = sample.acked - previous.acked;
    const window: WarmupWindow = {
      fromMs: boundaries[index]!,
      toMs: boundaries[index + 1]!,
      appends,
      cpuMicrosPerAppend: appends === 0 ? NaN : ((sample.cpuMs - previous.cpuMs) * 1000) / appends,
    };
    previous = sample;
    return window;
  });
}

/** Fresh servers per system and run: full runs repeat the case and report each window's median. */
const REPEATS_QUICK = 1;
const REPEATS_FULL = 3;

/** Each window's median over repeated measurements of the same case (appends summed, errors summed). */
export function medianWindows(measurements: readonly WarmupMeasurement[]): WarmupMeasurement {
  const first = measurements[0];
  if (first === undefined) throw new Error('no measurement');
  const windows = first.windows.map((window, index) => {
    const values = measurements
      .map((measurement) => measurement.windows[index]?.cpuMicrosPerAppend ?? NaN)
      .filter((value) => !Number.isNaN(value))
      .sort((a, b) => a - b);
    const middle = values.length / 2;
    const median =
      values.length === 0
        ? NaN
        : values.length % 2 === 1
          ? values[Math.floor(middle)]!
          : (values[middle - 1]! + values[middle]!) / 2;
    const appends = measurements.reduce((sum, measurement) => sum + (measurement.windows[index]?.appends ?? 0), 0);
    return { ...window, appends, cpuMicrosPerAppend: median };
  });
  const errors = measurements.reduce((sum, measurement) => sum + measurement.errors, 0);
  return { ratePerSec: first.ratePerSec, windows, errors };
}

/**
 * Scenario: a fresh node at 200 appends/s: CPU per append from its first append until warmed. The systems take
 * turns (hub, relay, hub, relay, …), each turn on a fresh process, so both meet the same machine.
 */
export async function runWarmup(
  context: BenchContext,
  hub: SystemTarget | undefined,
  log: (line: string) => void,
): Promise<{ rows: Row[]; raw: WarmupResults }> {
  const windows = context.quick ? WINDOWS_QUICK : WINDOWS_FULL;
  const repeats = context.quick ? REPEATS_QUICK : REPEATS_FULL;
  const measured: Record<string, WarmupMeasurement[]> = {};
  for (let round = 0; round < repeats; round++) {
    for (const [key, target] of [
      ['hub', hub],
      ['xadd', xaddRelayTarget(context)],
      ['ws', round === 0 ? wsRelayTarget() : undefined],
    ] as const) {
      if (target === undefined) continue;
      try {
        const measurement = await runWarmupCase(target, windows);
        (measured[key] ??= []).push(measurement);
        const perWindow = measurement.windows.map((window) => window.cpuMicrosPerAppend.toFixed(0)).join(' / ');
        log(
          `warmup ${key} at ${RATE_PER_SEC}/s, run ${round + 1}: µs of server CPU per append by window: ${perWindow}`,
        );
      } catch (error) {
        log(`warmup ${key} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  const wakeupFloor = await wakeupFloorAtRate(context.quick, log);
  const results: WarmupResults = { systems: {}, runs: measured, ...(wakeupFloor === undefined ? {} : { wakeupFloor }) };
  for (const [key, measurements] of Object.entries(measured)) results.systems[key] = medianWindows(measurements);
  return { rows: warmupRows(results), raw: results };
}

/** A bare Node TCP echo and redis-server `ECHO` at RATE_PER_SEC (undefined, and logged, if it fails). */
async function wakeupFloorAtRate(quick: boolean, log: (line: string) => void): Promise<WakeupFloor | undefined> {
  try {
    const timing = quick ? { warmupMs: 300, durationMs: 1500 } : { warmupMs: 1000, durationMs: 4000 };
    const [floor] = await measureWakeupFloor({ rates: [RATE_PER_SEC], ...timing });
    if (floor !== undefined) {
      log(
        `wake-up floor at ${RATE_PER_SEC}/s, µs of CPU per message: Node echo ${floor.nodeEchoMicros.toFixed(0)}, ` +
          `redis-server ${floor.redisEchoMicros.toFixed(0)}`,
      );
    }
    return floor;
  } catch (error) {
    log(`wake-up floor failed: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

function seconds(ms: number): string {
  return String(ms / 1000);
}

/** Table rows of the warm-up scenario (pure). */
export function warmupRows(results: WarmupResults): Row[] {
  const hub = results.systems['hub'];
  const xadd = results.systems['xadd'];
  const reference = hub ?? xadd;
  if (reference === undefined) return [];
  const scenario = `fresh node, ${reference.ratePerSec} appends/s`;
  const last = reference.windows.length - 1;
  const rows: Row[] = reference.windows.map((window, index) => {
    const hubValue = hub?.windows[index]?.cpuMicrosPerAppend ?? null;
    return {
      scenario,
      metric: `server CPU per append, ${seconds(window.fromMs)}–${seconds(window.toMs)} s after the first${index === last ? ' (warmed)' : ''}`,
      unit: 'µs',
      hub: hubValue,
      baselineName: 'ws relay + XADD',
      baseline: xadd?.windows[index]?.cpuMicrosPerAppend ?? null,
      target: index === last ? '≤ 50 µs' : '',
      met: index === last ? atMost(hubValue, 50) : null,
    };
  });
  const hubWarmed = hub?.windows.at(-1)?.cpuMicrosPerAppend ?? null;
  const ws = results.systems['ws'];
  if (ws !== undefined) {
    rows.push({
      scenario,
      metric: 'server CPU per append, warmed, next to a raw ws relay without Redis',
      unit: 'µs',
      hub: hubWarmed,
      baselineName: 'raw ws relay (no Redis)',
      baseline: ws.windows.at(-1)?.cpuMicrosPerAppend ?? null,
      target: '',
      met: null,
    });
  }
  const floor = results.wakeupFloor;
  if (floor !== undefined) {
    for (const [name, micros] of [
      ['bare Node TCP echo', floor.nodeEchoMicros],
      ['redis-server ECHO', floor.redisEchoMicros],
    ] as const) {
      rows.push({
        scenario,
        metric: 'server CPU per append, warmed, next to a server that only echoes (per message)',
        unit: 'µs',
        hub: hubWarmed,
        baselineName: name,
        baseline: micros,
        target: '',
        met: null,
      });
    }
  }
  const hubRatio = warmingRatio(hub);
  rows.push({
    scenario,
    metric: 'CPU per append 1.5–2 s after the first / warmed',
    unit: '×',
    hub: hubRatio,
    baselineName: xadd === undefined ? null : 'ws relay + XADD',
    baseline: warmingRatio(xadd),
    target: '≤ 1.2×',
    met: hubRatio === null ? null : hubRatio <= 1.2,
  });
  return rows;
}

/** A system's CPU per append 1.5–2 s after its first append over its warmed (last window) cost. */
function warmingRatio(measurement: WarmupMeasurement | undefined): number | null {
  const warmed = measurement?.windows.at(-1)?.cpuMicrosPerAppend;
  const atTwoSeconds = measurement?.windows.find((window) => window.toMs === 2000)?.cpuMicrosPerAppend;
  return warmed === undefined || atTwoSeconds === undefined ? null : atTwoSeconds / warmed;
}
