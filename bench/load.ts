import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FanoutWriter } from './clients/types.ts';

export interface OpenLoopOptions {
  /** Offered rate, operations per second (fixed: it does not slow down when the system under test does). */
  readonly ratePerSec: number;
  readonly durationMs: number;
  /**
   * Start operation number `index`, whose intended send time is `intendedMs` (performance.now() clock).
   * Measure its latency from `intendedMs`, not from the moment this is called: a generator that falls behind
   * (a stalled event loop, a slow system under test) then still charges the delay to the latency — no
   * coordinated omission.
   */
  fire(intendedMs: number, index: number): void;
  /** Stop early (e.g. the backlog grew past a safety bound); checked on every tick. */
  readonly abort?: () => boolean;
}

export interface OpenLoopResult {
  /** Operations started. */
  readonly sent: number;
  readonly elapsedMs: number;
  /** Whether `abort` stopped the run. */
  readonly aborted: boolean;
}

/**
 * Open-loop load: operation i is due at start + i / rate. Every ~1 ms tick starts all operations that are due,
 * each stamped with its own intended time, so the schedule never bends to the responses.
 */
export async function runOpenLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const intervalMs = 1000 / options.ratePerSec;
  const total = Math.max(1, Math.floor((options.durationMs * options.ratePerSec) / 1000));
  const start = performance.now();
  let sent = 0;
  let aborted = false;
  while (sent < total) {
    if (options.abort?.() === true) {
      aborted = true;
      break;
    }
    const due = Math.min(total, Math.floor((performance.now() - start) / intervalMs) + 1);
    while (sent < due) {
      options.fire(start + sent * intervalMs, sent);
      sent++;
    }
    if (sent < total) await sleep(Math.max(1, Math.floor(start + sent * intervalMs - performance.now())));
  }
  return { sent, elapsedMs: performance.now() - start, aborted };
}

export interface ClosedLoopOptions {
  /** Workers, each with one operation in flight at a time. */
  readonly concurrency: number;
  /** Not counted: lets connections, JIT and caches settle. */
  readonly warmupMs: number;
  readonly durationMs: number;
  /** One operation of worker `worker`; resolves with the number of units (events) it completed. */
  operation(worker: number): Promise<number>;
}

export interface ClosedLoopResult {
  /** Units completed inside the measured window. */
  readonly units: number;
  readonly windowMs: number;
  readonly unitsPerSec: number;
}

/**
 * Saturation throughput: `concurrency` workers run back-to-back operations; only completions inside the
 * measured window (after warm-up) count.
 */
export async function runClosedLoop(options: ClosedLoopOptions): Promise<ClosedLoopResult> {
  const start = performance.now();
  const windowStart = start + options.warmupMs;
  const windowEnd = windowStart + options.durationMs;
  let units = 0;
  const worker = async (index: number): Promise<void> => {
    while (performance.now() < windowEnd) {
      const done = await options.operation(index);
      const now = performance.now();
      if (now >= windowStart && now <= windowEnd) units += done;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, index) => worker(index)));
  return { units, windowMs: options.durationMs, unitsPerSec: (units * 1000) / options.durationMs };
}

/**
 * One writer appending one event at a time at a fixed rate (open loop, `runOpenLoop`) for `durationMs`;
 * `onAck(intendedMs)` is called for each acknowledged append. Resolves, once every append settled, with the number
 * that failed. Stops early when more than 10,000 wait for their ack.
 */
export async function appendAtRate(
  writer: FanoutWriter,
  ratePerSec: number,
  durationMs: number,
  onAck: (intendedMs: number) => void,
): Promise<number> {
  const pending = new Set<Promise<void>>();
  let errors = 0;
  await runOpenLoop({
    ratePerSec,
    durationMs,
    fire: (intendedMs, index) => {
      const done: Promise<void> = writer.append(index, intendedMs).then(
        () => {
          onAck(intendedMs);
          pending.delete(done);
        },
        () => {
          errors++;
          pending.delete(done);
        },
      );
      pending.add(done);
    },
    abort: () => pending.size > 10_000,
  });
  await Promise.all(pending);
  return errors;
}
