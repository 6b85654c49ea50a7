import { Redis } from 'ioredis';
import { pageStream, type ReplayResult } from '../baselines/xrange.ts';
import { cpuMicros } from '../best-cpu.ts';
import { cpuMs } from '../child/messages.ts';
import { redisCpuMs } from '../redis-stats.ts';
import type { ServerProcess } from '../child/spawn.ts';
import { stopAll, type CatchUpRun, type HubTarget } from '../targets.ts';

export interface HubCatchUpResult extends CatchUpRun {
  readonly eventsPerSec: number;
  readonly cpuMsPer1kEvents: number;
  readonly lagP99Ms: number;
}

/** CPU per 1,000 replayed events of the processes beside the hub: the reader (this process) and redis-server. */
export interface ReplayCpu {
  readonly readerMsPer1k: number;
  readonly redisMsPer1k: number;
}

/** One round: a raw `XRANGE` replay and a hub replay of the same stream, back to back. */
export interface CatchUpRound {
  readonly xrange: ReplayResult;
  readonly hub: HubCatchUpResult;
  /** The `XRANGE` replay's reader (paging and decoding) and Redis. */
  readonly xrangeCpu: ReplayCpu;
  /** The hub replay's subscriber (decoding the frames) and Redis; the hub's own CPU is in `hub`. */
  readonly hubSideCpu: ReplayCpu;
  /** Hub events/s over `XRANGE` events/s of this round. */
  readonly ratio: number;
}

/** The median of `values` (the lower middle one of an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

/** The item whose `value` is the median (see `median`); undefined when empty. */
export function medianItem<T>(items: readonly T[], value: (item: T) => number): T | undefined {
  const sorted = [...items].sort((a, b) => value(a) - value(b));
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/**
 * The figures of the rounds: the median `XRANGE` replay, the median hub replay (by events/s) with the median CPU
 * per 1k events and lag of all rounds, and the median of the per-round ratios.
 */
export function summarizeRounds(
  rounds: readonly CatchUpRound[],
):
  | { xrange: ReplayResult; hub: HubCatchUpResult; ratio: number; xrangeCpu: ReplayCpu; hubSideCpu: ReplayCpu }
  | undefined {
  const xrange = medianItem(rounds, (round) => round.xrange.eventsPerSec)?.xrange;
  const hub = medianItem(rounds, (round) => round.hub.eventsPerSec)?.hub;
  if (xrange === undefined || hub === undefined) return undefined;
  return {
    xrange,
    hub: {
      ...hub,
      cpuMsPer1kEvents: median(rounds.map((round) => round.hub.cpuMsPer1kEvents)),
      lagP99Ms: median(rounds.map((round) => round.hub.lagP99Ms)),
    },
    ratio: median(rounds.map((round) => round.ratio)),
    xrangeCpu: medianCpu(rounds.map((round) => round.xrangeCpu)),
    hubSideCpu: medianCpu(rounds.map((round) => round.hubSideCpu)),
  };
}

function medianCpu(cpu: readonly ReplayCpu[]): ReplayCpu {
  return {
    readerMsPer1k: median(cpu.map((one) => one.readerMsPer1k)),
    redisMsPer1k: median(cpu.map((one) => one.redisMsPer1k)),
  };
}

/** Run `pass` and measure this process's and redis-server's CPU meanwhile, per 1,000 of the events it replayed. */
async function withCpu<T extends { readonly events: number }>(
  redis: Redis,
  pass: () => Promise<T>,
): Promise<{ result: T; cpu: ReplayCpu }> {
  const redisBefore = await redisCpuMs(redis);
  const readerBefore = cpuMicros();
  const result = await pass();
  const readerMs = (cpuMicros() - readerBefore) / 1000;
  const redisMs = (await redisCpuMs(redis)) - redisBefore;
  const thousands = Math.max(1, result.events) / 1000;
  return { result, cpu: { readerMsPer1k: readerMs / thousands, redisMsPer1k: redisMs / thousands } };
}

async function measureHub(server: ServerProcess, hub: HubTarget, sessionId: string): Promise<HubCatchUpResult> {
  await server.mark();
  const run = await hub.catchUp(server.ports[0]!, sessionId);
  const cost = await server.sample();
  return {
    ...run,
    eventsPerSec: (run.events * 1000) / run.lastEventMs,
    cpuMsPer1kEvents: cpuMs(cost) / (run.events / 1000),
    lagP99Ms: cost.lagP99Ms,
  };
}

/**
 * `rounds` interleaved pairs of replays of the stream `key` (session `sessionId`): raw `XRANGE` pages in this
 * process and a new hub subscriber, after one warm-up replay of each (JIT). Which one goes first alternates, so a
 * load that comes and goes on a shared machine weighs on both alike; one replay of each compared the load (and
 * the garbage collectors' state) of two moments.
 */
export async function runCatchUpRounds(
  hub: HubTarget,
  redisUrl: string,
  stream: { readonly key: string; readonly sessionId: string; readonly pageSize: number },
  rounds: number,
): Promise<CatchUpRound[]> {
  const [server] = await hub.start(1);
  if (server === undefined) throw new Error('no hub');
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  try {
    const xrangePass = (): Promise<ReplayResult> => pageStream(redis, stream.key, stream.pageSize);
    await xrangePass();
    await hub.catchUp(server.ports[0]!, stream.sessionId);
    const results: CatchUpRound[] = [];
    for (let round = 0; round < rounds; round++) {
      const xrangeRun = (): Promise<{ result: ReplayResult; cpu: ReplayCpu }> => withCpu(redis, xrangePass);
      const hubRun = (): Promise<{ result: HubCatchUpResult; cpu: ReplayCpu }> =>
        withCpu(redis, () => measureHub(server, hub, stream.sessionId));
      let xrange: { result: ReplayResult; cpu: ReplayCpu };
      let replay: { result: HubCatchUpResult; cpu: ReplayCpu };
      if (round % 2 === 0) {
        xrange = await xrangeRun();
        replay = await hubRun();
      } else {
        replay = await hubRun();
        xrange = await xrangeRun();
      }
      results.push({
        xrange: xrange.result,
        hub: replay.result,
        ratio: replay.result.eventsPerSec / xrange.result.eventsPerSec,
        xrangeCpu: xrange.cpu,
        hubSideCpu: replay.cpu,
      });
    }
    return results;
  } finally {
    redis.disconnect();
    await stopAll([server]);
  }
}
