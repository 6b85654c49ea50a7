import type { ChildProcess } from 'node:child_process';
import { reportIncident } from './process-incidents.ts';

/** What Node prints last when a fatal exception (an uncaught error or unhandled rejection) ends the process. */
const FATAL_TRAILER = /^Node\.js v\d+\.\d+\.\d+$/m;

export interface WatchedChild {
  /** The test is about to end the child (kill, SIGTERM) or expects it to exit: its exit is no incident. */
  expectExit(): void;
}

/**
 * Watch a child process a test started, for the process guard (test/setup/process-guard.ts): a child that dies of
 * an uncaught error (Node's fatal trailer on stderr) is always an incident; one that exits on its own while the test
 * did not expect it (`exitExpected`, or `expectExit()` before the exit) is one too.
 */
export function watchChild(child: ChildProcess, name: string, options: { exitExpected?: boolean } = {}): WatchedChild {
  let exitExpected = options.exitExpected ?? false;
  let stderr = '';
  let reported = false;
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-64 * 1024);
    if (!reported && FATAL_TRAILER.test(stderr)) {
      reported = true;
      reportIncident(`${name} (pid ${String(child.pid)}) crashed:\n${stderr.slice(-4000)}`);
    }
  });
  child.once('exit', (code, signal) => {
    if (exitExpected || reported) return;
    reported = true;
    reportIncident(
      `${name} (pid ${String(child.pid)}) exited unexpectedly (code ${String(code)}, signal ${String(signal)}):\n` +
        stderr.slice(-4000),
    );
  });
  return {
    expectExit: () => {
      exitExpected = true;
    },
  };
}
