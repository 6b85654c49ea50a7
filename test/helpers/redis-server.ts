import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { watchChild, type WatchedChild } from './child-watch.ts';
import { freePort } from './free-port.ts';

export interface RedisServerOptions {
  /** Keep an append-only file so a restart keeps the data. Default false (nothing persisted). */
  readonly appendOnly?: boolean;
  readonly appendFsync?: 'always' | 'everysec' | 'no';
  /** Require this password (`--requirepass`); `url` does not carry it. */
  readonly password?: string;
  /** More `redis-server` arguments (e.g. `--cluster-enabled yes`, `--replicaof host port`). */
  readonly extraArgs?: readonly string[];
}

/**
 * Spawn `redis-server` with `args` and resolve with the child once it printed `readyText`; rejects when it exits
 * before (with what it printed).
 */
export function spawnRedisUntil(args: readonly string[], readyText: string): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise<ChildProcess>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes(readyText)) {
        child.stdout.off('data', onData);
        child.stdout.resume();
        child.off('exit', onExit);
        resolve(child);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.resume();
    child.once('error', reject);
    const onExit = (code: number | null): void =>
      reject(new Error(`redis-server exited with ${String(code)} before it was ready:\n${output}`));
    child.once('exit', onExit);
  });
}

/** SIGKILL a child (if still running) and resolve once it exited. */
export async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/**
 * A real `redis-server` child process on a free loopback port, for tests: start, kill (SIGKILL),
 * restart on the same port and data dir, stop. Nothing is shared with the machine's Redis.
 */
export class RedisServer {
  readonly port: number;
  readonly dir: string;
  readonly options: RedisServerOptions;
  #process: ChildProcess | undefined;
  /** The process guard's watch of the running server: an exit nobody asked for fails the running test. */
  #watch: WatchedChild | undefined;

  private constructor(port: number, dir: string, options: RedisServerOptions) {
    this.port = port;
    this.dir = dir;
    this.options = options;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.#process !== undefined;
  }

  static async start(options: RedisServerOptions = {}): Promise<RedisServer> {
    const dir = mkdtempSync(join(tmpdir(), 'session-hub-redis-'));
    for (let attempt = 0; ; attempt++) {
      const server = new RedisServer(await freePort(), dir, options);
      try {
        await server.#spawn();
        return server;
      } catch (error) {
        if (attempt >= 4) throw error;
      }
    }
  }

  /** Start again after `kill()`/`stop()`, on the same port and data dir. */
  async restart(): Promise<void> {
    if (this.#process !== undefined) await this.kill();
    await this.#spawn();
  }

  /** SIGKILL: no shutdown save, no goodbye to clients (a crash). */
  async kill(): Promise<void> {
    await this.#terminate();
  }

  /** SIGSTOP: the process freezes (no replication, no answers) until `resume()`. */
  pause(): void {
    this.#process?.kill('SIGSTOP');
  }

  /** SIGCONT after `pause()`. */
  resume(): void {
    this.#process?.kill('SIGCONT');
  }

  /** Stop and delete the data dir. */
  async stop(): Promise<void> {
    await this.#terminate();
    rmSync(this.dir, { recursive: true, force: true });
  }

  async #terminate(): Promise<void> {
    const child = this.#process;
    if (child === undefined) return;
    this.#process = undefined;
    this.#watch?.expectExit();
    this.#watch = undefined;
    await killChild(child);
  }

  async #spawn(): Promise<void> {
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--dir',
      this.dir,
      '--appendonly',
      this.options.appendOnly === true ? 'yes' : 'no',
      '--appendfsync',
      this.options.appendFsync ?? 'everysec',
      '--daemonize',
      'no',
      '--protected-mode',
      'no',
      ...(this.options.password === undefined ? [] : ['--requirepass', this.options.password]),
    ];
    const child = await spawnRedisUntil([...args, ...(this.options.extraArgs ?? [])], 'Ready to accept connections');
    this.#process = child;
    this.#watch = watchChild(child, `redis-server on port ${this.port}`);
    child.once('exit', () => {
      if (this.#process === child) this.#process = undefined;
    });
  }
}
