import { performance } from 'node:perf_hooks';
import { cpuMs } from '../child/messages.ts';
import type { FanoutWriter } from '../clients/types.ts';
import type { Timing } from '../fanout-run.ts';
import { runClosedLoop } from '../load.ts';
import { stopAll, xaddRelayTarget, type BenchContext } from '../targets.ts';

/** The ws relay + XADD at saturation: what receiving, storing and acking one event costs a server process. */
export interface RelayAppendResult {
  readonly eventsPerSec: number;
  /** Server CPU per 1k events (= µs per event). */
  readonly cpuMsPer1kEvents: number;
}

/**
 * The floor of the hub's one-event append at saturation, measured like the hub's row: one fresh server process,
 * `connections` writer connections, `inFlight` appends in flight in all (the hub run's sessions × appends per
 * session), one event per append, CPU of the server process over the same window after the same warm-up. The relay
 * stores every frame with its own pipelined `XADD` + `PUBLISH` and acks it: no validation, no seq, no group commit.
 */
export async function runRelayAppend(
  context: BenchContext,
  connections: number,
  inFlight: number,
  timing: Timing,
): Promise<RelayAppendResult> {
  const target = xaddRelayTarget(context);
  const [server] = await target.start(1);
  if (server === undefined) throw new Error('no relay');
  const writers: FanoutWriter[] = [];
  try {
    for (let index = 0; index < connections; index++) {
      writers.push(await target.system.writer(server.ports[0]!, `bench-relay-append-${index}`));
    }
    let marked = false;
    const mark = setTimeout(() => {
      marked = true;
      void server.mark();
    }, timing.warmupMs);
    let next = 0;
    const saturation = await runClosedLoop({
      concurrency: inFlight,
      ...timing,
      operation: async (worker) => {
        await writers[worker % connections]!.append(next++, performance.now());
        return 1;
      },
    });
    clearTimeout(mark);
    const cost = marked ? await server.sample() : undefined;
    return {
      eventsPerSec: saturation.unitsPerSec,
      cpuMsPer1kEvents: cost === undefined ? NaN : cpuMs(cost) / (saturation.units / 1000),
    };
  } finally {
    for (const writer of writers) writer.close();
    await stopAll([server]);
  }
}
