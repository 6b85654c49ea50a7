import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';
import type { ChildReady, ChildReply, ChildRequest, ChildSample } from './messages.ts';
import { WindowProfiler } from './window-profiler.ts';

/** A server running inside a child process. */
export interface ChildServer {
  readonly ports: readonly number[];
  stop(): Promise<void>;
}

function send(message: ChildReady | ChildReply): void {
  process.send?.(message);
}

/**
 * Child-process side of the bench: start the server, report `ready` with its ports, then answer `mark`
 * (reset CPU and event-loop counters; start a CPU profile when BENCH_PROFILE_DIR is set), `sample` (CPU, lag,
 * memory since mark; stop and write the profile), `gc` (collect, then sample; needs
 * --expose-gc), `snapshot` (collect, sample, then write a heap snapshot into BENCH_SNAPSHOT_DIR, default the
 * temporary directory) and `stop` (close the server and exit).
 */
export async function serveInChild(start: () => Promise<ChildServer>): Promise<void> {
  if (process.send === undefined) throw new Error('run me from the bench runner (needs an IPC channel)');
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let cpuAtMark = process.cpuUsage();
  let wallAtMark = performance.now();
  const sample = (): ChildSample => {
    const cpu = process.cpuUsage(cpuAtMark);
    const memory = process.memoryUsage();
    return {
      wallMs: performance.now() - wallAtMark,
      cpuUserMs: cpu.user / 1000,
      cpuSystemMs: cpu.system / 1000,
      lagP50Ms: delay.count === 0 ? 0 : delay.percentile(50) / 1e6,
      lagP99Ms: delay.count === 0 ? 0 : delay.percentile(99) / 1e6,
      lagMaxMs: delay.count === 0 ? 0 : delay.max / 1e6,
      rssBytes: memory.rss,
      heapUsedBytes: memory.heapUsed,
      heapTotalBytes: memory.heapTotal,
      externalBytes: memory.external,
    };
  };
  const profiler = WindowProfiler.fromEnv();
  const server = await start();
  process.on('message', (raw: ChildRequest) => {
    void (async (): Promise<void> => {
      try {
        switch (raw.op) {
          case 'mark':
            await profiler?.start();
            delay.reset();
            cpuAtMark = process.cpuUsage();
            wallAtMark = performance.now();
            send({ kind: 'reply', id: raw.id });
            return;
          case 'sample': {
            const measured = sample();
            const profileFile = await profiler?.stop();
            send({
              kind: 'reply',
              id: raw.id,
              sample: profileFile === undefined ? measured : { ...measured, profileFile },
            });
            return;
          }
          case 'gc':
            await collectGarbage();
            send({ kind: 'reply', id: raw.id, sample: sample() });
            return;
          case 'snapshot': {
            await collectGarbage();
            const measured = sample();
            const snapshotFile = writeHeapSnapshot(join(process.env['BENCH_SNAPSHOT_DIR'] ?? tmpdir(), snapshotName()));
            send({ kind: 'reply', id: raw.id, sample: { ...measured, snapshotFile } });
            return;
          }
          case 'stop':
            await server.stop();
            send({ kind: 'reply', id: raw.id });
            process.disconnect();
            setImmediate(() => process.exit(0));
            return;
        }
      } catch (error) {
        send({
          kind: 'reply',
          id: raw.id,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        });
      }
    })();
  });
  send({ kind: 'ready', ports: server.ports });
}

let snapshots = 0;
function snapshotName(): string {
  return `${process.env['BENCH_PROFILE_NAME'] ?? 'server'}-${process.pid}-${++snapshots}.heapsnapshot`;
}

async function collectGarbage(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('gc needs node --expose-gc');
  // Several rounds with turns of the event loop in between, so finalizers and weak callbacks run too.
  for (let round = 0; round < 4; round++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
