import { performance } from 'node:perf_hooks';
import { runXaddBaseline, type XaddResult } from '../baselines/xadd.ts';
import { cpuMs } from '../child/messages.ts';
import type { Timing } from '../fanout-run.ts';
import { runClosedLoop, runOpenLoop } from '../load.ts';
import { atLeast, atMost, type Row } from '../report.ts';
import { LatencyRecorder, type LatencySummary } from '../stats.ts';
import { runRelayAppend, type RelayAppendResult } from './append-floor.ts';
import { stopAll, type AppendClient, type BenchAppender, type BenchContext, type HubTarget } from '../targets.ts';

export interface HubAppendResult {
  /** The client the appends went through. */
  readonly client: 'SDK' | 'raw';
  readonly batch: number;
  readonly sessions: number;
  readonly connections: number;
  readonly eventsPerSec: number;
  readonly cpuMsPer1kEvents: number;
  /** CPU of the bench process (the appending clients only) per 1k events at saturation. */
  readonly clientCpuMsPer1kEvents: number;
  readonly lagP99Ms: number;
  readonly latencyAtHalfLoad: LatencySummary;
  readonly errors: number;
}

export interface AppendResults {
  readonly xadd: Record<string, XaddResult>;
  /** Through the SDK, by batch size. */
  readonly hub: Record<string, HubAppendResult>;
  /** Through the bare protocol (full runs only), by batch size. */
  readonly hubRaw: Record<string, HubAppendResult>;
  /** The ws relay + XADD under the one-event workload: the floor of a server's CPU per append. */
  readonly relay?: RelayAppendResult;
}

const CONNECTIONS = 4;

/** client → hub → Redis: `sessions` sessions over CONNECTIONS connections, `inFlight` appends per session. */
export async function runHubAppend(
  hub: HubTarget,
  client: AppendClient,
  batch: number,
  sessions: number,
  inFlight: number,
  timing: Timing,
): Promise<HubAppendResult> {
  const [server] = await hub.start(1);
  if (server === undefined) throw new Error('no hub');
  const appenders: BenchAppender[] = [];
  let errors = 0;
  try {
    for (let index = 0; index < CONNECTIONS; index++) appenders.push(await hub.appender(server.ports[0]!, client));
    const prefix = `bench-append-${batch}-${Date.now()}`;
    let nextIndex = 0;
    const append = (session: number, sentAtMs: number): Promise<void> => {
      const first = nextIndex;
      nextIndex += batch;
      return appenders[session % CONNECTIONS]!.append(`${prefix}-${session}`, first, batch, sentAtMs);
    };
    let marked = false;
    let clientCpuAtMark = process.cpuUsage();
    const mark = setTimeout(() => {
      marked = true;
      clientCpuAtMark = process.cpuUsage();
      void server.mark();
    }, timing.warmupMs);
    const saturation = await runClosedLoop({
      concurrency: sessions * inFlight,
      ...timing,
      operation: async (worker) => {
        await append(worker % sessions, performance.now()).catch(() => errors++);
        return batch;
      },
    });
    clearTimeout(mark);
    const clientCpu = process.cpuUsage(clientCpuAtMark);
    const cost = marked ? await server.sample() : undefined;
    const latency = new LatencyRecorder();
    let recording = false;
    const warmup = setTimeout(() => (recording = true), timing.warmupMs);
    const pending = new Set<Promise<void>>();
    await runOpenLoop({
      ratePerSec: Math.max(1, saturation.unitsPerSec / batch / 2),
      durationMs: timing.warmupMs + timing.durationMs,
      fire: (intendedMs, index) => {
        const done: Promise<void> = append(index % sessions, intendedMs).then(
          () => {
            if (recording) latency.recordMs(performance.now() - intendedMs);
            pending.delete(done);
          },
          () => {
            errors++;
            pending.delete(done);
          },
        );
        pending.add(done);
      },
      abort: () => pending.size > 50_000,
    });
    clearTimeout(warmup);
    await Promise.all(pending);
    return {
      client,
      batch,
      sessions,
      connections: CONNECTIONS,
      eventsPerSec: saturation.unitsPerSec,
      cpuMsPer1kEvents: cost === undefined ? NaN : cpuMs(cost) / (saturation.units / 1000),
      clientCpuMsPer1kEvents: marked ? (clientCpu.user + clientCpu.system) / 1000 / (saturation.units / 1000) : NaN,
      lagP99Ms: cost?.lagP99Ms ?? NaN,
      latencyAtHalfLoad: latency.summary(),
      errors,
    };
  } finally {
    for (const appender of appenders) appender.close();
    await stopAll([server]);
  }
}

/** Scenario 1: append throughput at saturation and ack latency at 50% of it, hub vs pipelined XADD. */
export async function runAppend(
  context: BenchContext,
  hub: HubTarget | undefined,
  log: (line: string) => void,
): Promise<{ rows: Row[]; raw: AppendResults }> {
  const timing: Timing = context.quick ? { warmupMs: 300, durationMs: 1500 } : { warmupMs: 1000, durationMs: 5000 };
  const sessions = 64;
  const results: { -readonly [K in keyof AppendResults]: AppendResults[K] } = { xadd: {}, hub: {}, hubRaw: {} };
  // The SDK is what the issue asks for; full runs add the bare protocol to separate the SDK's cost from the hub's.
  const clients: readonly AppendClient[] = context.quick ? ['SDK'] : ['SDK', 'raw'];
  for (const batch of [1, 16]) {
    const xadd = await runXaddBaseline(context.redisUrl, batch, batch === 1 ? sessions * 4 : sessions, timing);
    results.xadd[String(batch)] = xadd;
    log(`append xadd batch=${batch}: ${Math.round(xadd.eventsPerSec)} events/s`);
    if (hub === undefined) continue;
    if (batch === 1) {
      try {
        results.relay = await runRelayAppend(context, CONNECTIONS, sessions * 4, timing);
        log(`append ws relay + XADD: ${results.relay.cpuMsPer1kEvents.toFixed(1)} µs of server CPU per event`);
      } catch (error) {
        log(`append ws relay + XADD failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    for (const client of clients) {
      try {
        const measured = await runHubAppend(hub, client, batch, sessions, batch === 1 ? 4 : 1, timing);
        (client === 'SDK' ? results.hub : results.hubRaw)[String(batch)] = measured;
        log(
          `append hub (${client}) batch=${batch}: ${Math.round(measured.eventsPerSec)} events/s, ` +
            `p99 ${measured.latencyAtHalfLoad.p99Ms} ms at 50%, ${measured.errors} errors`,
        );
      } catch (error) {
        log(`append hub (${client}) batch=${batch} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  return { rows: appendRows(results), raw: results };
}

/** Table rows of the append scenario (pure). */
export function appendRows(results: AppendResults): Row[] {
  const rows: Row[] = [];
  for (const batch of [1, 16]) {
    const xadd = results.xadd[String(batch)];
    const hub = results.hub[String(batch)];
    if (xadd === undefined && hub === undefined) continue;
    const scenario = batch === 1 ? 'append, 1 event/append' : `append, batches of ${batch}`;
    const baselineName = batch === 1 ? 'pipelined XADD' : `XADD pipelines of ${batch}`;
    const rate = hub?.eventsPerSec ?? null;
    const baseline = xadd?.eventsPerSec ?? null;
    rows.push({
      scenario,
      metric: `events/s at saturation (${hub?.client ?? 'SDK'})`,
      unit: '/s',
      hub: rate,
      baselineName,
      baseline,
      target: batch === 1 ? '≥ 50,000/s' : '≥ 50% of XADD',
      met: batch === 1 ? atLeast(rate, 50_000) : atLeast(rate, baseline === null ? null : baseline * 0.5),
    });
    const raw = results.hubRaw[String(batch)];
    if (raw !== undefined) {
      rows.push({
        scenario,
        metric: 'events/s at saturation (bare protocol, no SDK)',
        unit: '/s',
        hub: raw.eventsPerSec,
        baselineName,
        baseline,
        target: '',
        met: null,
      });
    }
    for (const [label, pick] of [
      ['p50', (summary: LatencySummary) => summary.p50Ms],
      ['p99', (summary: LatencySummary) => summary.p99Ms],
      ['p99.9', (summary: LatencySummary) => summary.p999Ms],
    ] as const) {
      rows.push({
        scenario,
        metric: `${label} ack latency at 50% load`,
        unit: 'ms',
        hub: hub === undefined ? null : pick(hub.latencyAtHalfLoad),
        baselineName,
        baseline: xadd === undefined ? null : pick(xadd.latencyAtHalfLoad),
        target: '',
        met: null,
      });
    }
    rows.push({
      scenario,
      metric: 'CPU per 1k events (hub process; baseline: redis-server)',
      unit: 'ms',
      hub: hub?.cpuMsPer1kEvents ?? null,
      baselineName: 'redis-server under XADD',
      baseline: xadd?.redisCpuMsPer1kEvents ?? null,
      target: '',
      met: null,
    });
    if (batch === 1) {
      const perAppend = hub?.cpuMsPer1kEvents ?? null;
      rows.push({
        scenario,
        metric: 'server CPU per append at saturation (same workload)',
        unit: 'µs',
        hub: perAppend,
        baselineName: 'ws relay + XADD',
        baseline: results.relay?.cpuMsPer1kEvents ?? null,
        target: '≤ 20 µs',
        met: atMost(perAppend, 20),
      });
    }
    rows.push({
      scenario,
      metric: 'client CPU per 1k events (SDK; baseline: bare protocol)',
      unit: 'ms',
      hub: hub?.clientCpuMsPer1kEvents ?? null,
      baselineName: raw === undefined ? null : 'bare protocol client',
      baseline: raw?.clientCpuMsPer1kEvents ?? null,
      target: '',
      met: null,
    });
    rows.push({
      scenario,
      metric: 'hub event-loop lag p99 (saturation)',
      unit: 'ms',
      hub: hub?.lagP99Ms ?? null,
      baselineName: null,
      baseline: null,
      target: '',
      met: null,
    });
  }
  return rows;
}
