import { RedisStore } from '../../server/index.ts';
import { fillSessionInStore, pageStore, runXrangeBaseline, type ReplayResult } from '../baselines/xrange.ts';
import { cpuMs } from '../child/messages.ts';
import { atLeast, type Row } from '../report.ts';
import { stopAll, type BenchContext, type CatchUpRun, type HubTarget } from '../targets.ts';

export const CATCH_UP_EVENTS = 100_000;
const PAGE_SIZE = 1000;

export interface HubCatchUpResult extends CatchUpRun {
  readonly eventsPerSec: number;
  readonly cpuMsPer1kEvents: number;
  readonly lagP99Ms: number;
}

export interface CatchUpResults {
  readonly xrange?: ReplayResult;
  readonly storeRead?: ReplayResult;
  readonly hub?: HubCatchUpResult;
}

async function runHubCatchUp(hub: HubTarget, sessionId: string): Promise<HubCatchUpResult> {
  const [server] = await hub.start(1);
  if (server === undefined) throw new Error('no hub');
  try {
    const port = server.ports[0]!;
    await hub.catchUp(port, sessionId); // warm-up replay (JIT); not counted
    await server.mark();
    const run = await hub.catchUp(port, sessionId);
    const cost = await server.sample();
    return {
      ...run,
      eventsPerSec: (run.events * 1000) / run.lastEventMs,
      cpuMsPer1kEvents: cpuMs(cost) / (run.events / 1000),
      lagP99Ms: cost.lagP99Ms,
    };
  } finally {
    await stopAll([server]);
  }
}

/**
 * Scenario 3: a new subscriber replays a 100,000-event session from seq 0. The session is written straight into
 * the Redis store (not measured); the baseline pages the very same stream with raw XRANGE.
 */
export async function runCatchUp(
  context: BenchContext,
  hub: HubTarget | undefined,
  log: (line: string) => void,
): Promise<{ rows: Row[]; raw: CatchUpResults }> {
  const store = await RedisStore.open({ url: context.redisUrl });
  const sessionId = `bench-catchup-${Date.now()}`;
  const results: { xrange?: ReplayResult; storeRead?: ReplayResult; hub?: HubCatchUpResult } = {};
  try {
    await fillSessionInStore(store, sessionId, CATCH_UP_EVENTS);
    results.xrange = await runXrangeBaseline(context.redisUrl, store.keys(sessionId).log, PAGE_SIZE);
    log(`catch-up xrange: ${Math.round(results.xrange.eventsPerSec)} events/s`);
    if (!context.quick) await pageStore(store, sessionId, PAGE_SIZE); // warm-up pass
    results.storeRead = await pageStore(store, sessionId, PAGE_SIZE);
    log(`catch-up RedisStore.read: ${Math.round(results.storeRead.eventsPerSec)} events/s`);
    if (hub !== undefined) {
      try {
        results.hub = await runHubCatchUp(hub, sessionId);
        log(
          `catch-up hub: ${Math.round(results.hub.eventsPerSec)} events/s, live after ${results.hub.timeToLiveMs.toFixed(0)} ms`,
        );
      } catch (error) {
        log(`catch-up hub failed: ${error instanceof Error ? error.message : String(error)}`);
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
