import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildMessage, ChildOperation, ChildSample } from './messages.ts';

export interface SpawnServerOptions {
  /** Entry file relative to bench/ (e.g. `hub-process.ts`). */
  readonly entry: string;
  /** Configuration handed to the child as JSON in BENCH_CONFIG. */
  readonly config: unknown;
  /** Start with --expose-gc (memory scenario). */
  readonly exposeGc?: boolean;
  /** Write a V8 CPU profile of every measured window (mark → sample) into this directory. */
  readonly cpuProfileDir?: string;
  /** Name used in the profile file name and error messages. */
  readonly name: string;
}

/** A server (hub or baseline) in its own Node process, so its CPU and event loop are its own. */
export class ServerProcess {
  readonly name: string;
  readonly ports: readonly number[];
  readonly pid: number;
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, { resolve(sample: ChildSample | undefined): void; reject(e: Error): void }>();
  #nextId = 1;

  private constructor(name: string, child: ChildProcess, ports: readonly number[]) {
    this.name = name;
    this.#child = child;
    this.ports = ports;
    this.pid = child.pid ?? -1;
    child.on('message', (message: ChildMessage) => {
      if (message.kind !== 'reply') return;
      const pending = this.#pending.get(message.id);
      if (pending === undefined) return;
      this.#pending.delete(message.id);
      if (message.error !== undefined) pending.reject(new Error(`${name}: ${message.error}`));
      else pending.resolve(message.sample);
    });
    child.on('exit', (code, signal) => {
      for (const pending of this.#pending.values()) {
        pending.reject(new Error(`${name} exited (${String(code ?? signal)})`));
      }
      this.#pending.clear();
    });
  }

  static async start(options: SpawnServerOptions): Promise<ServerProcess> {
    const entry = fileURLToPath(new URL(`../${options.entry}`, import.meta.url));
    const flags = ['--conditions=source', '--import', 'tsx'];
    if (options.exposeGc === true) flags.push('--expose-gc');
    const child = spawn(process.execPath, [...flags, entry], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: {
        ...process.env,
        BENCH_CONFIG: JSON.stringify(options.config),
        LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn',
        ...(options.cpuProfileDir === undefined
          ? {}
          : { BENCH_PROFILE_DIR: options.cpuProfileDir, BENCH_PROFILE_NAME: options.name }),
      },
    });
    const ports = await new Promise<readonly number[]>((resolve, reject) => {
      const onMessage = (message: ChildMessage): void => {
        if (message.kind !== 'ready') return;
        child.off('exit', onExit);
        child.off('message', onMessage);
        resolve(message.ports);
      };
      const onExit = (code: number | null): void =>
        reject(new Error(`${options.name} exited with ${String(code)} before it was ready`));
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.once('error', reject);
    });
    return new ServerProcess(options.name, child, ports);
  }

  #request(op: ChildOperation): Promise<ChildSample | undefined> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#child.send({ kind: 'request', id, op });
    });
  }

  /** Reset the child's CPU and event-loop counters (start of a measured window). */
  async mark(): Promise<void> {
    await this.#request('mark');
  }

  /** CPU, event-loop lag and memory since the last mark. */
  async sample(): Promise<ChildSample> {
    const sample = await this.#request('sample');
    if (sample === undefined) throw new Error(`${this.name}: no sample`);
    return sample;
  }

  /** Full GC in the child, then a sample (needs exposeGc). */
  async sampleAfterGc(): Promise<ChildSample> {
    const sample = await this.#request('gc');
    if (sample === undefined) throw new Error(`${this.name}: no sample`);
    return sample;
  }

  /** Full GC in the child, a sample, then a heap snapshot the child writes (its path in `snapshotFile`). */
  async heapSnapshot(): Promise<ChildSample> {
    const sample = await this.#request('snapshot');
    if (sample?.snapshotFile === undefined) throw new Error(`${this.name}: no snapshot`);
    return sample;
  }

  /** Close the server and wait for the process to exit. */
  async stop(): Promise<void> {
    const child = this.#child;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await this.#request('stop').catch(() => undefined);
    await exited;
    clearTimeout(timer);
  }
}
