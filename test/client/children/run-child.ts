import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { watchChild, type WatchedChild } from '../../helpers/child-watch.ts';

/**
 * A script of this folder run with `node [flags] --import tsx <script> ...args`, watched by the suite's process
 * guard (a crash fails the test; so does an exit the test did not expect, unless `exitExpected`).
 */
export function spawnChild(
  script: string,
  args: readonly string[],
  options: { readonly flags?: readonly string[]; readonly exitExpected?: boolean } = {},
): { child: ChildProcess; watch: WatchedChild } {
  const path = fileURLToPath(new URL(`./${script}`, import.meta.url));
  const child = spawn(process.execPath, [...(options.flags ?? []), '--import', 'tsx', path, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const watch = watchChild(child, `node ${script}`, { exitExpected: options.exitExpected ?? false });
  return { child, watch };
}

/** Collect a child's output until it exits. */
export function untilExit(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Resolve once the child printed `line` on stdout (reject if it exits first, with what it printed). */
export function untilPrinted(child: ChildProcess, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.split('\n').includes(line)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`child exited with ${String(code)}: ${stdout}\n${stderr}`)));
  });
}
