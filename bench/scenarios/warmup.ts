import { performance } from 'node:perf_hooks';
import type { ServerProcess } from '../child/spawn.ts';
import { cpuMs, type ChildSample } from '../child/messages.ts';
import type { Closable, FanoutWriter } from '../clients/types.ts';
import { appendAtRate } from '../load.ts';
import { atMost, type Row } from '../report.ts';
import { stopAll, xaddRelayTarget, type BenchContext, type SystemTarget } from '../targets.ts';

/** The rate agents stream at: one event per append, each travelling alone. */
const RATE_PER_SEC = 200;

/** Window boundaries in ms after the first append; the last window is the node's warmed cost. */
const WINDOWS_QUICK = [0, 500, 1000, 1500, 2000, 3000, 5000] as const;
const WINDOWS_FULL = [0, 500, 1000, 1500, 2000, 3000, 5000, 10_000] as const;

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
  /** By system: `hub`, `xadd` (ws relay + XADD). */
  readonly systems: Record<string, WarmupMeasurement>;
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

/** Scenario: a fresh node at 200 appends/s: CPU per append from its first append until warmed. */
export async function runWarmup(
  context: BenchContext,
  hub: SystemTarget | undefined,
  log: (line: string) => void,
): Promise<{ rows: Row[]; raw: WarmupResults }> {
  const windows = context.quick ? WINDOWS_QUICK : WINDOWS_FULL;
  const results: WarmupResults = { systems: {} };
  for (const [key, target] of [
    ['hub', hub],
    ['xadd', xaddRelayTarget(context)],
  ] as const) {
    if (target === undefined) continue;
    try {
      const measured = await runWarmupCase(target, windows);
      results.systems[key] = measured;
      const perWindow = measured.windows.map((window) => window.cpuMicrosPerAppend.toFixed(0)).join(' / ');
      log(`warmup ${key} at ${RATE_PER_SEC}/s: µs of server CPU per append by window: ${perWindow}`);
    } catch (error) {
      log(`warmup ${key} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { rows: warmupRows(results), raw: results };
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
  const warmed = hub?.windows[last]?.cpuMicrosPerAppend ?? null;
  const atTwoSeconds = hub?.windows.find((window) => window.toMs === 2000)?.cpuMicrosPerAppend ?? null;
  rows.push({
    scenario,
    metric: 'CPU per append 1.5–2 s after the first / warmed',
    unit: '×',
    hub: atTwoSeconds === null || warmed === null ? null : atTwoSeconds / warmed,
    baselineName: null,
    baseline: null,
    target: '≤ 1.2×',
    met: atTwoSeconds === null || warmed === null ? null : atTwoSeconds / warmed <= 1.2,
  });
  return rows;
}
