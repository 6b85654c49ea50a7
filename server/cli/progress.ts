import { Presets, SingleBar } from 'cli-progress';

/** Progress of a long command, in events. */
export interface Progress {
  start(total: number, done?: number): void;
  update(done: number): void;
  stop(): void;
}

const silent: Progress = { start: () => {}, update: () => {}, stop: () => {} };

/**
 * A progress bar on `stream` (stderr) when it is a terminal, else nothing: piped or redirected output stays clean.
 * `label` names what is counted, e.g. `export acme/run-7`.
 */
export function progressBar(stream: NodeJS.WriteStream, label: string): Progress {
  if (stream.isTTY !== true) return silent;
  const bar = new SingleBar(
    {
      stream,
      format: `${label} [{bar}] {percentage}% | {value}/{total} events | {eta_formatted}`,
      clearOnComplete: false,
      hideCursor: true,
    },
    Presets.shades_classic,
  );
  return {
    start: (total, done = 0) => bar.start(total, done),
    update: (done) => bar.update(done),
    stop: () => bar.stop(),
  };
}
