import { runAckCase } from '../ack-run.ts';
import { runFanoutCase, runLatencyCase, type FanoutMeasurement, type Timing } from '../fanout-run.ts';
import type { LatencySummary } from '../stats.ts';
import { atLeast, atMost, type Row } from '../report.ts';
import {
  socketIoTarget,
  stopAll,
  wsRelayTarget,
  xaddRelayTarget,
  type BenchContext,
  type SystemTarget,
} from '../targets.ts';

export interface FanoutResults {
  /** measurements[system][nodes][subscribers] */
  readonly measurements: Record<string, Record<string, Record<string, Measured>>>;
  /** The fixed-rate case (`FIXED_RATE`): fixedRate[system], two nodes. */
  readonly fixedRate: Record<string, FanoutMeasurement>;
}

/** The rate agents stream at: each event travels alone (no group commit), `subscribers` on two nodes. */
const FIXED_RATE = { eventsPerSec: 200, subscribers: 100, nodes: 2 } as const;

const LATENCY_PERCENTILES: readonly [string, (summary: LatencySummary) => number][] = [
  ['p50', (summary) => summary.p50Ms],
  ['p99', (summary) => summary.p99Ms],
  ['p99.9', (summary) => summary.p999Ms],
];

interface Measured {
  readonly saturation: FanoutMeasurement;
  /** At 50 % of this system's own saturation rate. */
  readonly atLoad: FanoutMeasurement;
  /** At 50 % of the slowest system's saturation rate in the same case (the same offered load for every system). */
  atCommonLoad?: FanoutMeasurement;
  /**
   * The hub on one node at `ACK_RATE` events/s: append→ack of a writer in a process of its own (does the ack wait
   * for the local fan-out?).
   */
  ackAtRate?: LatencySummary;
}

/** Offered events/s of the append→ack case: a rate at which each append commits alone. */
const ACK_RATE = 20;

/** 50 % of the lowest saturation rate (events/s) any system reached with `nodes` nodes and `subscribers`. */
function commonLoad(results: FanoutResults, nodes: number, subscribers: number): number | undefined {
  const rates = Object.values(results.measurements)
    .map((byNodes) => byNodes[String(nodes)]?.[String(subscribers)]?.saturation.eventsPerSec)
    .filter((rate): rate is number => rate !== undefined && rate > 0);
  return rates.length < 2 ? undefined : Math.min(...rates) * 0.5;
}

/** Start `nodes` servers of `target`, run `each` for every subscriber count on them, then stop them. */
async function onServers(
  target: SystemTarget,
  nodes: number,
  subscriberCounts: readonly number[],
  each: (servers: Awaited<ReturnType<SystemTarget['start']>>, subscribers: number) => Promise<void>,
): Promise<void> {
  const servers = await target.start(nodes);
  try {
    for (const subscribers of subscriberCounts) await each(servers, subscribers);
  } finally {
    await stopAll(servers);
  }
}

/** One system, one node count, every subscriber count of the plan. */
interface PlanCase {
  readonly key: string;
  readonly target: SystemTarget;
  readonly nodes: number;
  readonly subscriberCounts: readonly number[];
}

/** First pass: saturation, then latency at 50 % of it. */
function measure(plan: PlanCase, timing: Timing, results: FanoutResults, log: (line: string) => void): Promise<void> {
  const { key, target, nodes } = plan;
  return onServers(target, nodes, plan.subscriberCounts, async (servers, subscribers) => {
    const sessionId = `bench-fanout-${key}-${nodes}-${subscribers}-${Date.now()}`;
    const measured = await runFanoutCase({ system: target.system, servers, subscribers, sessionId, timing });
    ((results.measurements[key] ??= {})[String(nodes)] ??= {})[String(subscribers)] = measured;
    const { saturation, atLoad } = measured;
    if (key === 'hub' && nodes === 1) {
      const ackAtRate = await runAckCase({
        system: target.system,
        server: servers[0]!,
        subscribers,
        sessionId: `${sessionId}-ack`,
        ratePerSec: ACK_RATE,
        timing,
      });
      results.measurements[key]![String(nodes)]![String(subscribers)]!.ackAtRate = ackAtRate;
      log(`fanout hub nodes=1 subs=${subscribers}: p50 append→ack ${ackAtRate.p50Ms} ms at ${ACK_RATE}/s`);
    }
    log(
      `fanout ${key} nodes=${nodes} subs=${subscribers}: ${Math.round(saturation.deliveriesPerSec)} deliveries/s ` +
        `(server ${saturation.serverCores.toFixed(2)} cores, load generator ${saturation.loadGeneratorCores.toFixed(2)}), ` +
        `p99 ${atLoad.latency?.p99Ms ?? NaN} ms at ${Math.round(atLoad.offeredEventsPerSec ?? 0)} events/s`,
    );
  });
}

/** Second pass: latency at the case's common load (see `commonLoad`). */
function measureAtCommonLoad(
  plan: PlanCase,
  timing: Timing,
  results: FanoutResults,
  log: (line: string) => void,
): Promise<void> {
  const { key, target, nodes } = plan;
  return onServers(target, nodes, plan.subscriberCounts, async (servers, subscribers) => {
    const measured = results.measurements[key]?.[String(nodes)]?.[String(subscribers)];
    const offered = commonLoad(results, nodes, subscribers);
    if (measured === undefined || offered === undefined) return;
    const sessionId = `bench-fanout-common-${key}-${nodes}-${subscribers}-${Date.now()}`;
    measured.atCommonLoad = await runLatencyCase(
      { system: target.system, servers, subscribers, sessionId, timing },
      offered,
    );
    log(
      `fanout ${key} nodes=${nodes} subs=${subscribers}: p99 ${measured.atCommonLoad.latency?.p99Ms ?? NaN} ms ` +
        `at the common load of ${Math.round(offered)} events/s`,
    );
  });
}

/** Third pass: every two-node system at `FIXED_RATE` (p99 append→receive and server CPU per delivery). */
async function measureFixedRate(
  key: string,
  target: SystemTarget,
  timing: Timing,
  results: FanoutResults,
  log: (line: string) => void,
): Promise<void> {
  const { eventsPerSec, subscribers, nodes } = FIXED_RATE;
  await onServers(target, nodes, [subscribers], async (servers) => {
    const sessionId = `bench-fanout-fixed-${key}-${Date.now()}`;
    const measured = await runLatencyCase(
      { system: target.system, servers, subscribers, sessionId, timing },
      eventsPerSec,
    );
    results.fixedRate[key] = measured;
    log(
      `fanout ${key} nodes=${nodes} subs=${subscribers} at ${eventsPerSec}/s: p99 ${measured.latency?.p99Ms ?? NaN} ms, ` +
        `${cpuMicrosPerDelivery(measured)?.toFixed(1) ?? NaN} µs server CPU per delivery`,
    );
  });
}

/** Server CPU (all nodes) per delivery of a measured window, in µs. */
function cpuMicrosPerDelivery(measured: FanoutMeasurement | undefined): number | null {
  if (measured === undefined || measured.deliveriesPerSec === 0) return null;
  return (measured.cost.cpuMs * 1000) / ((measured.deliveriesPerSec * measured.windowMs) / 1000);
}

/** Scenario 2: one writer, 1 / 100 / 1,000 subscribers, one node and two; deliveries/s and latency. */
export async function runFanout(
  context: BenchContext,
  hub: SystemTarget | undefined,
  log: (line: string) => void,
): Promise<{ rows: Row[]; raw: FanoutResults }> {
  const timing: Timing = context.quick ? { warmupMs: 300, durationMs: 1200 } : { warmupMs: 1000, durationMs: 4000 };
  const counts = context.quick ? [1, 1000] : [1, 100, 1000];
  const results: FanoutResults = { measurements: {}, fixedRate: {} };
  // Quick: the single-node cases at both ends, the two-node hub; full: every combination.
  const plan: [string, SystemTarget | undefined, number, readonly number[]][] = [
    ['hub', hub, 1, counts],
    ['hub', hub, 2, context.quick ? [1000] : counts],
    ['ws', wsRelayTarget(), 1, counts],
    ['socketio', socketIoTarget(context), 1, context.quick ? [1000] : counts],
    ['socketio', socketIoTarget(context), 2, context.quick ? [] : counts],
  ];
  const cases: PlanCase[] = plan.flatMap(([key, target, nodes, subscriberCounts]) =>
    target === undefined || subscriberCounts.length === 0 ? [] : [{ key, target, nodes, subscriberCounts }],
  );
  // First every case at saturation and 50 % of it; then every case again at one offered load per case: 50 % of
  // the slowest system's saturation (all saturations must be known first).
  for (const [pass, run] of [
    ['', measure],
    [' (common load)', measureAtCommonLoad],
  ] as const) {
    for (const planCase of cases) {
      try {
        await run(planCase, timing, results, log);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        log(`fanout ${planCase.key} nodes=${planCase.nodes}${pass} failed: ${reason}`);
      }
    }
  }
  for (const [key, target] of [
    ['hub', hub],
    ['xadd', xaddRelayTarget(context)],
    ['socketio', socketIoTarget(context)],
  ] as const) {
    if (target === undefined) continue;
    await measureFixedRate(key, target, timing, results, log).catch((error: unknown) => {
      log(`fanout ${key} fixed rate failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
  return { rows: [...fanoutRows(results, counts), ...fixedRateRows(results)], raw: results };
}

function get(results: FanoutResults, key: string, nodes: number, subscribers: number): Measured | undefined {
  return results.measurements[key]?.[String(nodes)]?.[String(subscribers)];
}

/** The table rows of the fan-out scenario (pure: from the measurements). */
export function fanoutRows(results: FanoutResults, counts: readonly number[]): Row[] {
  const rows: Row[] = [];
  for (const nodes of [1, 2]) {
    for (const subscribers of counts) {
      const hub = get(results, 'hub', nodes, subscribers);
      const ws = nodes === 1 ? get(results, 'ws', 1, subscribers) : undefined;
      const sio = get(results, 'socketio', nodes, subscribers);
      if (hub === undefined && ws === undefined && sio === undefined) continue;
      const scenario = `fan-out ${subscribers} sub${subscribers === 1 ? '' : 's'}, ${nodes} node${nodes === 1 ? '' : 's'}`;
      const hubRate = hub?.saturation.deliveriesPerSec ?? null;
      if (nodes === 1) {
        const wsRate = ws?.saturation.deliveriesPerSec ?? null;
        rows.push({
          scenario,
          metric: 'deliveries/s',
          unit: '/s',
          hub: hubRate,
          baselineName: 'raw ws broadcast',
          baseline: wsRate,
          target: '≥ 80% of raw ws',
          met: atLeast(hubRate, wsRate === null ? null : wsRate * 0.8),
        });
      }
      const sioRate = sio?.saturation.deliveriesPerSec ?? null;
      rows.push({
        scenario,
        metric: 'deliveries/s',
        unit: '/s',
        hub: hubRate,
        baselineName: 'Socket.IO',
        baseline: sioRate,
        target: '≥ 3× Socket.IO',
        met: atLeast(hubRate, sioRate === null ? null : sioRate * 3),
      });
      const perCore = hub?.saturation.deliveriesPerCpuSec ?? null;
      for (const [baselineName, baseline] of nodes === 1
        ? ([
            ['raw ws broadcast', ws],
            ['Socket.IO', sio],
          ] as const)
        : ([['Socket.IO', sio]] as const)) {
        rows.push({
          scenario,
          metric: 'deliveries per server CPU-second (per core)',
          unit: '/s',
          hub: perCore,
          baselineName,
          baseline: baseline?.saturation.deliveriesPerCpuSec ?? null,
          target: '≥ 150,000/s',
          met: atLeast(perCore, 150_000),
        });
      }
      const latencyBaseline = nodes === 1 ? ws : sio;
      for (const [label, pick] of LATENCY_PERCENTILES) {
        const value = hub?.atLoad.latency === undefined ? null : pick(hub.atLoad.latency);
        const isP99 = label === 'p99';
        rows.push({
          scenario,
          metric: `${label} append→receive at 50% load`,
          unit: 'ms',
          hub: value,
          baselineName: nodes === 1 ? 'raw ws broadcast' : 'Socket.IO',
          baseline: latencyBaseline?.atLoad.latency === undefined ? null : pick(latencyBaseline.atLoad.latency),
          target: isP99 ? '≤ 5 ms' : '',
          met: isP99 ? atMost(value, 5) : null,
        });
      }
      if (nodes === 1 && subscribers > 1) {
        const ackP50 = hub?.ackAtRate?.p50Ms ?? null;
        const oneP50 = get(results, 'hub', 1, 1)?.ackAtRate?.p50Ms ?? null;
        rows.push({
          scenario,
          metric: `p50 append→ack at ${ACK_RATE} events/s (writer in its own process)`,
          unit: 'ms',
          hub: ackP50,
          baselineName: 'hub, 1 subscriber',
          baseline: oneP50,
          target: '≤ 1.5× with 1 subscriber',
          met: atMost(ackP50, oneP50 === null ? null : oneP50 * 1.5),
        });
      }
      const common = commonLoad(results, nodes, subscribers);
      const commonValue = hub?.atCommonLoad?.latency?.p99Ms ?? null;
      if (common !== undefined) {
        rows.push({
          scenario,
          metric: `p99 append→receive, every system at ${Math.round(common)} events/s`,
          unit: 'ms',
          hub: commonValue,
          baselineName: nodes === 1 ? 'raw ws broadcast' : 'Socket.IO',
          baseline: latencyBaseline?.atCommonLoad?.latency?.p99Ms ?? null,
          target: '≤ 5 ms',
          met: atMost(commonValue, 5),
        });
      }
      rows.push({
        scenario,
        metric: 'server CPU per 1k events (saturation)',
        unit: 'ms',
        hub: hub?.saturation.cpuMsPer1kEvents ?? null,
        baselineName: 'Socket.IO',
        baseline: sio?.saturation.cpuMsPer1kEvents ?? null,
        target: '',
        met: null,
      });
      rows.push({
        scenario,
        metric: 'server / load-generator CPU, cores (saturation)',
        unit: '',
        hub: hub?.saturation.serverCores ?? null,
        baselineName: 'load generator (hub run)',
        baseline: hub?.saturation.loadGeneratorCores ?? null,
        target: '',
        met: null,
      });
      rows.push({
        scenario,
        metric: 'server event-loop lag p99 (saturation)',
        unit: 'ms',
        hub: hub?.saturation.cost.lagP99Ms ?? null,
        baselineName: 'Socket.IO',
        baseline: sio?.saturation.cost.lagP99Ms ?? null,
        target: '',
        met: null,
      });
    }
  }
  return rows;
}

/** The rows of the fixed-rate case (pure: from the measurements). */
export function fixedRateRows(results: FanoutResults): Row[] {
  const { eventsPerSec, subscribers, nodes } = FIXED_RATE;
  const scenario = `fan-out ${eventsPerSec} events/s × ${subscribers} subs, ${nodes} nodes`;
  const hub = results.fixedRate['hub'];
  const xadd = results.fixedRate['xadd'];
  const sio = results.fixedRate['socketio'];
  const p99 = (measured: FanoutMeasurement | undefined): number | null => measured?.latency?.p99Ms ?? null;
  const hubP99 = p99(hub);
  const hubCpu = cpuMicrosPerDelivery(hub);
  const sioCpu = cpuMicrosPerDelivery(sio);
  const times = (value: number | null, factor: number): number | null => (value === null ? null : value * factor);
  return [
    {
      scenario,
      metric: 'p99 append→receive',
      unit: 'ms',
      hub: hubP99,
      baselineName: 'ws relay + XADD',
      baseline: p99(xadd),
      target: '≤ 1.5× ws relay + XADD',
      met: atMost(hubP99, times(p99(xadd), 1.5)),
    },
    {
      scenario,
      metric: 'p99 append→receive',
      unit: 'ms',
      hub: hubP99,
      baselineName: 'Socket.IO',
      baseline: p99(sio),
      target: '≤ 0.5× Socket.IO',
      met: atMost(hubP99, times(p99(sio), 0.5)),
    },
    {
      scenario,
      metric: 'server CPU per delivery (all nodes)',
      unit: 'µs',
      hub: hubCpu,
      baselineName: 'Socket.IO',
      baseline: sioCpu,
      target: '≤ 0.5× Socket.IO',
      met: atMost(hubCpu, times(sioCpu, 0.5)),
    },
    {
      scenario,
      metric: 'server CPU per delivery (all nodes)',
      unit: 'µs',
      hub: hubCpu,
      baselineName: 'ws relay + XADD',
      baseline: cpuMicrosPerDelivery(xadd),
      target: '',
      met: null,
    },
  ];
}
