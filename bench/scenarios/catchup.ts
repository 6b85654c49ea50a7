import { RedisStore } from '../../server/index.ts';
import { fillSessionInStore, pageStore, runXrangeBaseline, type ReplayResult } from '../baselines/xrange.ts';
import { atLeast, type Row } from '../report.ts';
import type { BenchContext, HubTarget } from '../targets.ts';
import {
  runCatchUpRounds,
  summarizeRounds,
  type CatchUpRound,
  type HubCatchUpResult,
  type ReplayCpu,
} from './catchup-rounds.ts';

export type { HubCatchUpResult } from './catchup-rounds.ts';

export const CATCH_UP_EVENTS = 100_000;
const PAGE_SIZE = 1000;
/** Interleaved pairs of replays (raw `XRANGE`, hub) the figures are the medians of. */
const ROUNDS = { quick: 3, full: 5 };

export interface CatchUpResults {
  /** The median raw `XRANGE` replay of the rounds (one replay when no hub runs). */
  readonly xrange?: ReplayResult;
  readonly storeRead?: ReplayResult;
  /** The median hub replay of the rounds, with the median CPU per 1k events and lag p99. */
  readonly hub?: HubCatchUpResult;
  /** Every round, in order. */
  readonly rounds?: readonly CatchUpRound[];
  /** The median of the rounds' hub / `XRANGE` ratios. */
  readonly pairedRatio?: number;
  /** Medians of the rounds: the `XRANGE` reader and Redis; the hub's subscriber and Redis. */
  readonly xrangeCpu?: ReplayCpu;
  readonly hubSideCpu?: ReplayCpu;
}

/**
 * Scenario 3: a new subscriber replays a 100,000-event session from seq 0. The session is written straight into
 * the Redis store (not measured); the baseline pages the very same stream with raw XRANGE, in interleaved rounds
 * with the hub (see `runCatchUpRounds`).
 */
export async function runCatchUp(
  context: BenchContext,
  hub: HubTarget | undefined,
  log: (line: string) => void,
): Promise<{ rows: Row[]; raw: CatchUpResults }> {
  const store = await RedisStore.open({ url: context.redisUrl });
  const sessionId = `bench-catchup-${Date.now()}`;
  let results: CatchUpResults = {};
  try {
    await fillSessionInStore(store, sessionId, CATCH_UP_EVENTS);
    const key = store.keys(sessionId).log;
    if (!context.quick) await pageStore(store, sessionId, PAGE_SIZE); // warm-up pass
    const storeRead = await pageStore(store, sessionId, PAGE_SIZE);
    log(`catch-up RedisStore.read: ${Math.round(storeRead.eventsPerSec)} events/s`);
    results = { storeRead };
    if (hub === undefined) {
      results = { ...results, xrange: await runXrangeBaseline(context.redisUrl, key, PAGE_SIZE) };
    } else {
      try {
        const count = context.quick ? ROUNDS.quick : ROUNDS.full;
        const rounds = await runCatchUpRounds(hub, context.redisUrl, { key, sessionId, pageSize: PAGE_SIZE }, count);
        for (const round of rounds) {
          log(
            `catch-up xrange ${Math.round(round.xrange.eventsPerSec)} events/s, hub ${Math.round(round.hub.eventsPerSec)} events/s (${round.ratio.toFixed(2)}×)`,
          );
        }
        const summary = summarizeRounds(rounds);
        results = { ...results, rounds };
        if (summary !== undefined) {
          const { xrange, hub: replay, ratio: pairedRatio, xrangeCpu, hubSideCpu } = summary;
          results = { ...results, xrange, hub: replay, pairedRatio, xrangeCpu, hubSideCpu };
          log(
            `catch-up hub: median ${Math.round(summary.hub.eventsPerSec)} events/s, paired ratio median ${summary.ratio.toFixed(2)}×`,
          );
        }
      } catch (error) {
        log(`catch-up hub failed: ${error instanceof Error ? error.message : String(error)}`);
        results = { ...results, xrange: await runXrangeBaseline(context.redisUrl, key, PAGE_SIZE) };
      }
    }
  } finally {
    await store.deleteSession(sessionId).catch(() => false);
    await store.close();
  }
  return { rows: catchUpRows(results), raw: results };
}

/** Table rows of the catch-up scenario (pure). */
export function catchUpRows(results: CatchUpResults): Row[] {
  const scenario = `catch-up ${CATCH_UP_EVENTS.toLocaleString('en-US')} events`;
  const hub = results.hub;
  const xrange = results.xrange;
  const baselineName = `XRANGE pages of ${PAGE_SIZE}`;
  return [
    {
      scenario,
      metric: 'events/s replayed',
      unit: '/s',
      hub: hub?.eventsPerSec ?? null,
      baselineName,
      baseline: xrange?.eventsPerSec ?? null,
      target: '≥ 200,000/s',
      met: atLeast(hub?.eventsPerSec ?? null, 200_000),
    },
    {
      scenario,
      metric: 'events/s replayed',
      unit: '/s',
      hub: hub?.eventsPerSec ?? null,
      baselineName: `RedisStore.read pages of ${PAGE_SIZE}`,
      baseline: results.storeRead?.eventsPerSec ?? null,
      target: '',
      met: null,
    },
    {
      scenario,
      metric: 'time until live',
      unit: 'ms',
      hub: hub?.timeToLiveMs ?? null,
      baselineName,
      baseline: xrange?.elapsedMs ?? null,
      target: '',
      met: null,
    },
    {
      scenario,
      metric: 'hub CPU per 1k events',
      unit: 'ms',
      hub: hub?.cpuMsPer1kEvents ?? null,
      baselineName: null,
      baseline: null,
      target: '',
      met: null,
    },
    {
      scenario,
      metric: 'CPU per 1k events, every process of the replay (hub, its subscriber, Redis; baseline: reader, Redis)',
      unit: 'ms',
      hub: sum(hub?.cpuMsPer1kEvents, results.hubSideCpu?.readerMsPer1k, results.hubSideCpu?.redisMsPer1k),
      baselineName,
      baseline: sum(results.xrangeCpu?.readerMsPer1k, results.xrangeCpu?.redisMsPer1k),
      target: '',
      met: null,
    },
    {
      scenario,
      metric: 'CPU per 1k events of the reader (the subscriber decoding frames; baseline: the XRANGE reader)',
      unit: 'ms',
      hub: results.hubSideCpu?.readerMsPer1k ?? null,
      baselineName,
      baseline: results.xrangeCpu?.readerMsPer1k ?? null,
      target: '',
      met: null,
    },
    {
      scenario,
      metric: 'hub event-loop lag p99',
      unit: 'ms',
      hub: hub?.lagP99Ms ?? null,
      baselineName: null,
      baseline: null,
      target: '',
      met: null,
    },
  ];
}

/** The sum of the parts, or null when one is missing. */
function sum(...parts: readonly (number | undefined)[]): number | null {
  return parts.every((part): part is number => part !== undefined) ? parts.reduce((a, b) => a + b, 0) : null;
}
