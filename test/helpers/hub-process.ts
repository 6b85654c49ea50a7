import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { watchChild, type WatchedChild } from './child-watch.ts';

const binPath = fileURLToPath(new URL('../../bin/session-hub.mjs', import.meta.url));
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A hub node running as a child process through the real CLI (`session-hub serve`), for crash tests. Watched by
 * the process guard: a node that crashes or exits without `kill()`/`terminate()` fails the running test.
 */
export class HubProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly wsUrl: string;
  /** Everything the process printed on stdout. */
  readonly stdout: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly #watch: WatchedChild;

  private constructor(child: ChildProcess, watch: WatchedChild, url: string, wsUrl: string, stdout: string) {
    this.child = child;
    this.#watch = watch;
    this.url = url;
    this.wsUrl = wsUrl;
    this.stdout = stdout;
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        resolve({ code: child.exitCode, signal: child.signalCode });
      } else child.once('exit', (code, signal) => resolve({ code, signal }));
    });
  }

  /** Start `session-hub serve --port 0 <args>` and wait until it prints its URL. */
  static start(args: readonly string[], env: Record<string, string> = {}): Promise<HubProcess> {
    const child = spawn(process.execPath, [binPath, 'serve', '--port', '0', ...args], {
      cwd: repoRoot,
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const watch = watchChild(child, `session-hub serve ${args.join(' ')}`);
    return new Promise((resolve, reject) => {
      let stdout = '';
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /listening on (http:\/\/\S+) \(WebSocket (ws:\/\/\S+)\)/.exec(stdout);
        if (match !== null && stdout.includes('engine:')) {
          resolve(new HubProcess(child, watch, match[1]!, match[2]!, stdout));
        }
      });
      child.once('error', reject);
      child.once('exit', (code) => {
        watch.expectExit(); // a node that fails to start fails `start()` itself
        reject(new Error(`session-hub exited with ${String(code)}:\n${stdout}\n${stderr}`));
      });
    });
  }

  /** SIGKILL: no shutdown, no close frames (a crash). */
  async kill(): Promise<void> {
    this.#watch.expectExit();
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM: graceful shutdown. */
  async terminate(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.#watch.expectExit();
    this.child.kill('SIGTERM');
    return this.exited;
  }
}
