import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServerProcess } from './child/spawn.ts';
import { cpuMs, type ChildSample } from './child/messages.ts';
import type { Closable, FanoutSystem, FanoutWriter } from './clients/types.ts';
import { DeliveryTracker } from './delivery-tracker.ts';
import { runOpenLoop } from './load.ts';
import type { LatencySummary } from './stats.ts';

export interface Timing {
  readonly warmupMs: number;
  readonly durationMs: number;
}

/** Server-side cost of a measured window, summed over the server processes (hub nodes). */
export interface ServerCost {
  /** CPU milliseconds of all server processes during the window. */
  readonly cpuMs: number;
  /** Worst p99 / max event-loop delay of any server process. */
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
}

export interface FanoutMeasurement {
  readonly subscribers: number;
  /** Events the writer had committed and the subscribers received, per second. */
  readonly eventsPerSec: number;
  readonly deliveriesPerSec: number;
  /** Deliveries per second of server CPU: the figure per hub core. */
  readonly deliveriesPerCpuSec: number;
  readonly cpuMsPer1kEvents: number;
  readonly cost: ServerCost;
  /** Length of the measured window. */
  readonly windowMs: number;
  /** CPU of the server processes during the window, in cores. */
  readonly serverCores: number;
  /** CPU of the bench process itself (writer and every subscriber) during the window, in cores (1 = one full core). */
  readonly loadGeneratorCores: number;
  /** Present for latency runs: append→receive, from the intended send time. */
  readonly latency?: LatencySummary;
  /** Present for latency runs: append→ack (the writer's), from the intended send time. */
  readonly ackLatency?: LatencySummary;
  /** Offered events/s for latency runs. */
  readonly offeredEventsPerSec?: number;
  /** The open-loop run stopped early because the backlog exploded (the system could not keep up). */
  readonly overloaded?: boolean;
}

function combine(samples: readonly ChildSample[]): ServerCost {
  return {
    cpuMs: samples.reduce((sum, sample) => sum + cpuMs(sample), 0),
    lagP99Ms: Math.max(...samples.map((sample) => sample.lagP99Ms)),
    lagMaxMs: Math.max(...samples.map((sample) => sample.lagMaxMs)),
  };
}

async function connectSubscribers(
  system: FanoutSystem,
  ports: readonly number[],
  count: number,
  sessionId: string,
  tracker: DeliveryTracker,
): Promise<Closable[]> {
  const subscribers: Closable[] = [];
  const onDelivery = (index: number, sentAtMs: number): void => tracker.onDelivered(index, sentAtMs);
  for (let first = 0; first < count; first += 100) {
    const batch = Array.from({ length: Math.min(100, count - first) }, (_, offset) =>
      system.subscribe(ports[(first + offset) % ports.length]!, sessionId, onDelivery),
    );
    subscribers.push(...(await Promise.all(batch)));
  }
  return subscribers;
}

async function drain(tracker: DeliveryTracker, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (tracker.backlog > 0) {
    if (performance.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

function measurement(
  subscribers: number,
  deliveries: number,
  windowMs: number,
  cost: ServerCost,
  loadCpu: NodeJS.CpuUsage,
  extra: Partial<FanoutMeasurement> = {},
): FanoutMeasurement {
  const events = deliveries / subscribers;
  return {
    windowMs,
    serverCores: cost.cpuMs / windowMs,
    loadGeneratorCores: (loadCpu.user + loadCpu.system) / 1000 / windowMs,
    subscribers,
    eventsPerSec: (events * 1000) / windowMs,
    deliveriesPerSec: (deliveries * 1000) / windowMs,
    deliveriesPerCpuSec: cost.cpuMs === 0 ? 0 : (deliveries * 1000) / cost.cpuMs,
    cpuMsPer1kEvents: events === 0 ? 0 : cost.cpuMs / (events / 1000),
    cost,
    ...extra,
  };
}

export interface FanoutCase {
  readonly system: FanoutSystem;
  readonly servers: readonly ServerProcess[];
  readonly subscribers: number;
  readonly sessionId: string;
  readonly timing: Timing;
}

/** Connect the case's subscribers and writer, run `measure` with them, then close them all. */
async function withClients<T>(
  fanoutCase: FanoutCase,
  measure: (tracker: DeliveryTracker, writer: FanoutWriter) => Promise<T>,
): Promise<T> {
  const { system, servers, subscribers: count } = fanoutCase;
  const ports = servers.flatMap((server) => server.ports);
  const tracker = new DeliveryTracker(count);
  const subscribers = await connectSubscribers(system, ports, count, fanoutCase.sessionId, tracker);
  const writer = await system.writer(ports[0]!, fanoutCase.sessionId);
  try {
    return await measure(tracker, writer);
  } finally {
    writer.close();
    for (const subscriber of subscribers) subscriber.close();
  }
}

/**
 * One fan-out case: saturation (the writer keeps `window` events not yet received by every subscriber in
 * flight: throughput bounded by the system, not by the writer's pacing), then an open-loop run at
 * `latencyLoad` × the saturation rate measuring append→receive latency.
 */
export function runFanoutCase(
  fanoutCase: FanoutCase,
  latencyLoad = 0.5,
): Promise<{ saturation: FanoutMeasurement; atLoad: FanoutMeasurement }> {
  const { servers, timing } = fanoutCase;
  return withClients(fanoutCase, async (tracker, writer) => {
    const saturation = await saturate(tracker, writer, servers, timing);
    const offered = Math.max(1, saturation.eventsPerSec * latencyLoad);
    const atLoad = await atFixedLoad(tracker, writer, servers, timing, offered);
    return { saturation, atLoad };
  });
}

/**
 * Latency only: the same setup as `runFanoutCase`, one open-loop run at `offeredEventsPerSec` (e.g. a load every
 * system of the case can carry, so their latencies compare at the same offered load).
 */
export function runLatencyCase(fanoutCase: FanoutCase, offeredEventsPerSec: number): Promise<FanoutMeasurement> {
  const { servers, timing } = fanoutCase;
  const offered = Math.max(1, offeredEventsPerSec);
  return withClients(fanoutCase, async (tracker, writer) => {
    // A fresh server: one discarded run first, so JIT and caches are as warm as after a saturation run.
    await atFixedLoad(tracker, writer, servers, timing, offered);
    return atFixedLoad(tracker, writer, servers, timing, offered);
  });
}

let appendErrors = 0;
/** Appends the servers rejected (counted, reported by the runner). */
export function fanoutAppendErrors(): number {
  return appendErrors;
}

function send(tracker: DeliveryTracker, writer: FanoutWriter, index: number, intendedMs: number): void {
  tracker.onSent(index);
  writer.append(index, intendedMs).then(
    () => tracker.onAcked(intendedMs),
    () => {
      appendErrors++;
    },
  );
}

async function saturate(
  tracker: DeliveryTracker,
  writer: FanoutWriter,
  servers: readonly ServerProcess[],
  timing: Timing,
): Promise<FanoutMeasurement> {
  // Keep ~20k deliveries in flight: enough to fill every pipe, bounded so memory stays flat.
  const window = Math.max(4, Math.min(2048, Math.ceil(20_000 / tracker.subscribers)));
  let stop = false;
  const writing = (async (): Promise<void> => {
    while (!stop) {
      await tracker.waitForBacklogBelow(window);
      if (!stop) send(tracker, writer, tracker.sent, performance.now());
    }
  })();
  await sleep(timing.warmupMs);
  await Promise.all(servers.map((server) => server.mark()));
  const startDeliveries = tracker.deliveries;
  const start = performance.now();
  const startCpu = process.cpuUsage();
  await sleep(timing.durationMs);
  const deliveries = tracker.deliveries - startDeliveries;
  const windowMs = performance.now() - start;
  const loadCpu = process.cpuUsage(startCpu);
  const cost = combine(await Promise.all(servers.map((server) => server.sample())));
  stop = true;
  await drain(tracker, 30_000);
  await writing.catch(() => undefined);
  return measurement(tracker.subscribers, deliveries, windowMs, cost, loadCpu);
}

async function atFixedLoad(
  tracker: DeliveryTracker,
  writer: FanoutWriter,
  servers: readonly ServerProcess[],
  timing: Timing,
  offeredEventsPerSec: number,
): Promise<FanoutMeasurement> {
  let startDeliveries = 0;
  let start = performance.now();
  let startCpu = process.cpuUsage();
  const recording = setTimeout(() => {
    void Promise.all(servers.map((server) => server.mark()));
    tracker.startRecording();
    startDeliveries = tracker.deliveries;
    start = performance.now();
    startCpu = process.cpuUsage();
  }, timing.warmupMs);
  const run = await runOpenLoop({
    ratePerSec: offeredEventsPerSec,
    durationMs: timing.warmupMs + timing.durationMs,
    fire: (intendedMs, _index) => send(tracker, writer, tracker.sent, intendedMs),
    abort: () => tracker.backlog > tracker.capacity / 2,
  });
  clearTimeout(recording);
  const deliveries = tracker.deliveries - startDeliveries;
  const windowMs = performance.now() - start;
  const loadCpu = process.cpuUsage(startCpu);
  const cost = combine(await Promise.all(servers.map((server) => server.sample())));
  const drained = await drain(tracker, 30_000);
  tracker.stopRecording();
  const latency = tracker.latency.summary();
  const ackLatency = tracker.ackLatency.summary();
  tracker.latency.reset();
  tracker.ackLatency.reset();
  return measurement(tracker.subscribers, deliveries, windowMs, cost, loadCpu, {
    latency,
    ackLatency,
    offeredEventsPerSec,
    overloaded: run.aborted || !drained,
  });
}
