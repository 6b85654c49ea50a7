/**
 * A dummy CPU load of a given size (bench/archive-append.ts's floor): `mainMsPerSec` of busy work on this thread,
 * in slices of at most `SLICE_MS` with the event loop served between them (the most cooperative a background job
 * of that cost can be), and `otherMsPerSec` on a worker thread (what the job runs off the main thread: the archive's
 * compression and fsyncs on the libuv pool), both spread evenly over each 10 ms.
 */
import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToLoop, setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';

const PERIOD_MS = 10;
const SLICE_MS = 0.5;

function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

const WORKER_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
let stopped = false;
parentPort.on('message', () => { stopped = true; });
const tick = () => {
  if (stopped) return process.exit(0);
  const until = performance.now() + workerData.busyPerPeriod;
  while (performance.now() < until);
  setTimeout(tick, ${PERIOD_MS} - workerData.busyPerPeriod);
};
tick();
`;

export interface CpuBurner {
  stop(): Promise<void>;
}

export function startCpuBurner(mainMsPerSec: number, otherMsPerSec: number): CpuBurner {
  let stopped = false;
  const mainPerPeriod = Math.min(PERIOD_MS * 0.9, (Math.max(0, mainMsPerSec) * PERIOD_MS) / 1000);
  const otherPerPeriod = Math.min(PERIOD_MS * 0.9, (Math.max(0, otherMsPerSec) * PERIOD_MS) / 1000);
  const main = (async () => {
    while (!stopped) {
      const periodStart = performance.now();
      for (let left = mainPerPeriod; left > 0 && !stopped; left -= SLICE_MS) {
        spin(Math.min(SLICE_MS, left));
        await yieldToLoop();
      }
      const rest = PERIOD_MS - (performance.now() - periodStart);
      if (rest > 0) await sleep(rest);
    }
  })();
  const worker =
    otherPerPeriod > 0 ? new Worker(WORKER_CODE, { eval: true, workerData: { busyPerPeriod: otherPerPeriod } }) : null;
  return {
    async stop() {
      stopped = true;
      await main;
      if (worker !== null) {
        const exited = new Promise((resolve) => worker.once('exit', resolve));
        worker.postMessage('stop');
        await exited;
      }
    },
  };
}
