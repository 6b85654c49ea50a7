import { execFileSync } from 'node:child_process';
import { cpus, freemem, totalmem, loadavg } from 'node:os';

/** What the figures were measured on. */
export interface MachineInfo {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly node: string;
  readonly redis: string;
  readonly platform: string;
  /** 1-minute load average when the run started (shows other work on the machine). */
  readonly loadAverageAtStart: number;
  readonly freeMemoryGiB: number;
}

/** Describe this machine; the Redis version comes from `redis-server --version`. */
export function machineInfo(): MachineInfo {
  const cpuList = cpus();
  let redis = 'unknown';
  try {
    const output = execFileSync('redis-server', ['--version'], { encoding: 'utf8' });
    redis = /v=(\S+)/.exec(output)?.[1] ?? output.trim();
  } catch (error) {
    redis = `unavailable (${error instanceof Error ? error.message : String(error)})`;
  }
  return {
    cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
    cores: cpuList.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    redis,
    platform: `${process.platform} ${process.arch}`,
    loadAverageAtStart: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    freeMemoryGiB: Math.round((freemem() / 2 ** 30) * 10) / 10,
  };
}
