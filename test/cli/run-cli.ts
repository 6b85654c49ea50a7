import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { main } from '../../server/cli/cli.ts';
import { watchChild } from '../helpers/child-watch.ts';

const binPath = fileURLToPath(new URL('../../bin/session-hub.mjs', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A running `session-hub <args>` process, with what it printed so far. */
export interface CliProcess {
  readonly child: ChildProcess;
  readonly output: { stdout: string; stderr: string };
  readonly done: Promise<CliResult>;
}

/**
 * Start `session-hub <args>` (the real bin) with `env` on top of a clean environment: no SESSION_HUB_* or hub
 * variables of the test runner leak in. `stdin` is written and closed when given, else stdin is closed at once.
 */
export function startCli(args: readonly string[], env: Record<string, string> = {}, stdin?: string): CliProcess {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(SESSION_HUB_|AUTH_|PORT$|REDIS_URL$)/.test(name)),
  );
  const child = spawn(process.execPath, [binPath, ...args], {
    env: { ...base, LOG_LEVEL: 'silent', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // A command ends on its own (its exit is expected), but a crash (Node's fatal trailer) fails the test.
  watchChild(child, `session-hub ${args[0] ?? ''}`, { exitExpected: true });
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  child.stdin!.end(stdin);
  const done = new Promise<CliResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, ...output }));
  });
  return { child, output, done };
}

/** Run `session-hub <args>` to its end. */
export function runCli(args: readonly string[], env: Record<string, string> = {}, stdin?: string): Promise<CliResult> {
  return startCli(args, env, stdin).done;
}

/**
 * Run `session-hub <args>` inside the test process (the same `main` the bin runs, with captured streams and only
 * `env` as the environment): much faster than a process where exit codes and signals are not the point.
 */
export async function runCliHere(
  args: readonly string[],
  env: Record<string, string> = {},
  stdin: string | Uint8Array = '',
): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const output = { stdout: '', stderr: '' };
  stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const code = await main(args, {
    stdout,
    stderr: stderr as unknown as NodeJS.WriteStream,
    stdin: Readable.from([stdin]) as unknown as NodeJS.ReadStream,
    env,
  });
  return { code, ...output };
}
