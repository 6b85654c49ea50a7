import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

/**
 * V8 CPU profiles of measured windows only (the same sampler as `node --cpu-prof`, driven through the inspector
 * of the child's own main thread), so start-up and module loading do not dilute the shares. Enabled by
 * BENCH_PROFILE_DIR; files are `<BENCH_PROFILE_NAME>-<n>.cpuprofile`.
 */
export class WindowProfiler {
  readonly #dir: string;
  readonly #name: string;
  readonly #session = new Session();
  #running = false;
  #count = 0;

  private constructor(dir: string, name: string) {
    this.#dir = dir;
    this.#name = name;
    mkdirSync(dir, { recursive: true });
    this.#session.connect();
  }

  /** A profiler when BENCH_PROFILE_DIR is set, else undefined. */
  static fromEnv(): WindowProfiler | undefined {
    const dir = process.env['BENCH_PROFILE_DIR'];
    return dir === undefined || dir === ''
      ? undefined
      : new WindowProfiler(dir, process.env['BENCH_PROFILE_NAME'] ?? 'server');
  }

  #post(method: string, params: object = {}): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#session.post(method, params, (error, result) => (error === null ? resolve(result) : reject(error)));
    });
  }

  /** Start a new window (a window still running is discarded). */
  async start(): Promise<void> {
    if (this.#running) await this.#post('Profiler.stop');
    await this.#post('Profiler.enable');
    await this.#post('Profiler.setSamplingInterval', { interval: 200 });
    await this.#post('Profiler.start');
    this.#running = true;
  }

  /** Stop the window and write its profile; returns the file, or undefined when no window was running. */
  async stop(): Promise<string | undefined> {
    if (!this.#running) return undefined;
    this.#running = false;
    const { profile } = (await this.#post('Profiler.stop')) as { profile: unknown };
    const file = join(this.#dir, `${this.#name}-${++this.#count}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    return file;
  }
}
