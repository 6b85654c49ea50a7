import { spawn } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { watchChild } from '../helpers/child-watch.ts';
import { takeIncidents } from '../helpers/process-incidents.ts';

/**
 * The process guard (test/setup/process-guard.ts) records what must fail a test. Each case provokes one incident and
 * takes it back (so that this test itself passes), proving that it was recorded.
 */
describe('process guard', () => {
  it('records an unhandled rejection in the worker', async () => {
    void Promise.reject(new Error('guard probe: rejection'));
    await vi.waitFor(() => expect(takeIncidents()).toEqual([expect.stringContaining('guard probe: rejection')]));
  });

  it('records a child process that dies of an uncaught error', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => { throw new RangeError("guard probe: crash") })'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    watchChild(child, 'probe');
    await new Promise((resolve) => child.once('close', resolve));
    expect(takeIncidents()).toEqual([expect.stringMatching(/probe \(pid \d+\) (crashed|exited unexpectedly)/)]);
  });

  it('records a child that exits on its own, not one the test ends', async () => {
    const quitter = spawn(process.execPath, ['-e', 'process.exit(3)'], { stdio: 'ignore' });
    watchChild(quitter, 'quitter');
    await new Promise((resolve) => quitter.once('close', resolve));
    expect(takeIncidents()).toEqual([expect.stringContaining('quitter')]);

    const ended = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const watch = watchChild(ended, 'ended');
    watch.expectExit();
    ended.kill('SIGKILL');
    await new Promise((resolve) => ended.once('close', resolve));
    expect(takeIncidents()).toEqual([]);
  });
});
